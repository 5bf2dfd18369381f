import SalvoWorker
import Testing

@Suite struct CampaignProgressLedgerTests {
    private func at(_ ms: Int64) -> UTCTimestamp { UTCTimestamp(millisecondsSince1970: ms) }

    @Test func countersAddUpToTheFinishedNotifications() {
        var counters = CampaignCounters()
        counters.count(.accepted, times: 7)
        counters.count(.feedback(reason: "BadDeviceToken"), times: 2)
        counters.count(.deadLettered(afterSending: true))
        counters.count(.deadLettered(afterSending: false))
        counters.count(.cancelled, times: 4)
        #expect(counters.finished == 15)
        #expect(counters.sent == 10, "accepted, feedback and the dead letter APNs answered")
    }

    @Test func retryingIsABalanceThatMergesAcrossWorkers() {
        // Worker A schedules a retry and hands it to the retry topic; worker B sends it.
        var a = CampaignCounters()
        var b = CampaignCounters()
        a.count(.retryScheduled)
        #expect(a.retrying == 1)
        b.count(.accepted, isRetry: true)
        #expect(b.retrying == -1)
        var fleet = a
        fleet.add(b)
        #expect(fleet.retrying == 0 && fleet.accepted == 1 && fleet.finished == 1)
    }

    @Test func ledgerHandsOutOnlyChangedCampaigns() {
        var ledger = CampaignProgressLedger(worker: "w1")
        ledger.count(.accepted, campaignID: "spring", times: 3, at: at(100))
        ledger.count(.cancelled, campaignID: "summer", at: at(150))
        let first = ledger.takeChangedRecords(now: at(200))
        #expect(first.map(\.campaignID) == ["spring", "summer"])
        #expect(first[0].counters.accepted == 3 && first[0].firstAt == at(100) && first[0].publishedAt == at(200))
        #expect(ledger.takeChangedRecords(now: at(300)).isEmpty)
        ledger.count(.accepted, campaignID: "spring", at: at(400))
        let second = ledger.takeChangedRecords(now: at(500))
        #expect(second.map(\.campaignID) == ["spring"])
        #expect(second[0].counters.accepted == 4 && second[0].lastAt == at(400) && second[0].slice == first[0].slice)
    }

    @Test func anIdleCampaignIsDroppedAndCountedInANewSliceAfterwards() {
        var ledger = CampaignProgressLedger(worker: "w1", idleEviction: .seconds(10))
        ledger.count(.accepted, campaignID: "spring", times: 5, at: at(0))
        let old = ledger.takeChangedRecords(now: at(1))
        _ = ledger.takeChangedRecords(now: at(20_000))
        #expect(ledger.campaignCount == 0)
        ledger.count(.accepted, campaignID: "spring", times: 2, at: at(30_000))
        let new = ledger.takeChangedRecords(now: at(30_001))
        #expect(new[0].slice != old[0].slice, "a new key, so the old record is not overwritten")
        var merger = CampaignProgressMerger()
        merger.apply(old[0])
        merger.apply(new[0])
        #expect(merger.totals(for: "spring")?.counters.accepted == 7)
    }

    @Test func mergerKeepsEachWorkersLatestRecordAndSums() throws {
        var w1 = CampaignProgressLedger(worker: "w1")
        var w2 = CampaignProgressLedger(worker: "w2")
        var merger = CampaignProgressMerger()
        w1.count(.accepted, campaignID: "spring", times: 10, at: at(1_000))
        w2.count(.accepted, campaignID: "spring", times: 20, at: at(2_000))
        let early = w1.takeChangedRecords(now: at(2_500))
        w1.count(.cancelled, campaignID: "spring", times: 5, at: at(3_000))
        for record in w1.takeChangedRecords(now: at(3_500)) + w2.takeChangedRecords(now: at(3_500)) {
            merger.apply(record)
        }
        let applied = merger.apply(early[0])
        #expect(!applied, "an older record of the same worker does not win")
        let totals = try #require(merger.totals(for: "spring"))
        #expect(totals.counters.accepted == 30 && totals.counters.cancelled == 5 && totals.records == 2)
        #expect(totals.firstAt == at(1_000) && totals.lastAt == at(3_000))
        #expect(totals.averageRate == 35.0 * 1000 / 2000)
        #expect(merger.totals(for: "summer") == nil)
    }
}
