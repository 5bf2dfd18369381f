import SalvoWorker
import Testing

@Suite struct CampaignHoldQueueTests {
    private let start = ContinuousClock.now

    @Test func holdsPerCampaignInOrderAndGivesThemBack() {
        var queue = CampaignHoldQueue<Int, ContinuousClock.Instant>(capacity: 10, maximumHold: .seconds(5))
        for index in 0..<4 {
            #expect(queue.hold(index, campaignID: index.isMultiple(of: 2) ? "even" : "odd", now: start) == nil)
        }
        #expect(queue.count == 4)
        #expect(queue.take(campaignID: "even") == [0, 2])
        #expect(queue.take(campaignID: "even") == [])
        #expect(queue.count == 2)
        #expect(queue.take(campaignID: "odd") == [1, 3])
        #expect(queue.isEmpty && queue.nextExpiry == nil)
    }

    @Test func aFullQueueReturnsTheItemForHandOff() {
        var queue = CampaignHoldQueue<Int, ContinuousClock.Instant>(capacity: 2, maximumHold: .seconds(5))
        #expect(queue.hold(1, campaignID: "a", now: start) == nil)
        #expect(queue.hold(2, campaignID: "b", now: start) == nil)
        #expect(queue.hold(3, campaignID: "a", now: start) == 3)
        #expect(queue.count == 2)
    }

    @Test func itemsHeldTooLongAreDueForHandOffOldestFirst() {
        var queue = CampaignHoldQueue<Int, ContinuousClock.Instant>(capacity: 10, maximumHold: .seconds(5))
        _ = queue.hold(1, campaignID: "a", now: start)
        _ = queue.hold(2, campaignID: "a", now: start + .seconds(3))
        _ = queue.hold(3, campaignID: "b", now: start + .seconds(1))
        #expect(queue.nextExpiry == start + .seconds(5))
        #expect(queue.takeExpired(now: start + .seconds(4)).isEmpty)
        let expired = queue.takeExpired(now: start + .seconds(6))
        #expect(expired.map(\.item).sorted() == [1, 3])
        #expect(queue.count == 1 && queue.nextExpiry == start + .seconds(8))
    }

    @Test func aRevokeTakesThePartitionsItems() {
        var queue = CampaignHoldQueue<Int, ContinuousClock.Instant>(capacity: 10, maximumHold: .seconds(5))
        for index in 0..<6 { _ = queue.hold(index, campaignID: "c\(index % 2)", now: start) }
        #expect(queue.removeAll { $0 >= 4 }.sorted() == [4, 5])
        #expect(queue.count == 4)
        #expect(queue.take(campaignID: "c0") == [0, 2])
    }

    @Test func changesSinceTellTheCoreWhatToDo() {
        let at = { (ms: Int64) in UTCTimestamp(millisecondsSince1970: ms) }
        let before = CampaignControlState([
            CampaignCommand(campaignID: "a", action: .pause, by: "t", at: at(1)),
            CampaignCommand(campaignID: "b", action: .pause, by: "t", at: at(1)),
            CampaignCommand(campaignID: "c", action: .cancel, by: "t", at: at(1)),
        ])
        var after = before
        after.apply(CampaignCommand(campaignID: "a", action: .resume, by: "t", at: at(2)))
        after.apply(CampaignCommand(campaignID: "b", action: .cancel, by: "t", at: at(2)))
        after.apply(CampaignCommand(campaignID: "d", action: .pause, by: "t", at: at(2)))
        after.apply(CampaignCommand(campaignID: "e", action: .resume, by: "t", at: at(2)))
        #expect(after.changes(since: before) == ["a": .send, "b": .cancel, "d": .hold])
        #expect(after.changes(since: after).isEmpty)
    }
}
