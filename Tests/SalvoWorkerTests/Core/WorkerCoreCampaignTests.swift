import Foundation
import NIOCore
import NIOEmbedded
import SalvoAPNs
import SalvoKafka
import Synchronization
import Testing

@testable import SalvoWorker

/// Campaign control in the core, as timelines: cancel, pause, resume, the hold bounds.
@Suite("WorkerCore: campaign control")
struct WorkerCoreCampaignTests {
    /// A job of campaign `campaign` (the harness's campaign job with a `campaign_id`).
    static func job(_ id: String, campaign: String, tokens: Range<Int>) -> String {
        #"{"campaign_id":""# + campaign + #"","# + CoreHarness.campaign(id, tokens: tokens).dropFirst()
    }

    static func perUser(_ range: Range<Int>) -> [String] {
        range.map { EngineJobs.perUser(id: "u\($0)", token: EngineJobs.perUserToken($0)) }
    }

    static func state(_ commands: (String, CampaignCommand.Action)...) -> CampaignControlState {
        var state = CampaignControlState()
        for (offset, (campaignID, action)) in commands.enumerated() {
            state.apply(
                CampaignCommand(
                    campaignID: campaignID, action: action, by: "test",
                    at: UTCTimestamp(millisecondsSince1970: 1_000 + Int64(offset))))
        }
        return state
    }

    static let unavailable = ScriptedPool.serviceUnavailable

    @Test(
        "cancel drops the campaign's queued and retry-held work as cancelled, its later jobs complete unsent, other work is untouched"
    )
    func cancelDropsEverythingUnsent() throws {
        let harness = try CoreHarness(streams: 10)
        harness.consume([Self.job("a1", campaign: "spring", tokens: 0..<200)])
        #expect(harness.pool.unanswered.count == 20)
        // Five of the first twenty wait for a retry; the rest are accepted and twenty more go out.
        let retried = Set((0..<5).map(Fixtures.tokenHex))
        harness.answer { retried.contains($0.token.hex) ? Self.unavailable : ScriptedPool.accepted }
        #expect(harness.statistics.retryDepth == 5)
        #expect(harness.pool.unanswered.count == 15, "held retries count against the window")
        harness.core.controlChanged(Self.state(("spring", .cancel)))
        harness.loop.run()
        #expect(
            harness.statistics.cancelled == 170,
            "165 queued and 5 held for a retry; the 15 in flight are answered as usual")
        #expect(harness.statistics.retryDepth == 0)
        #expect(harness.answer { _ in ScriptedPool.accepted } == 15)
        harness.advance(by: .seconds(2))
        #expect(harness.pool.unanswered.isEmpty, "nothing of the campaign goes out after the cancel")
        #expect(harness.committed.map(\.offset) == [0], "the cancelled job completes and commits")
        // A later job of the campaign completes without sending; another campaign and per-user pushes send.
        harness.consume([
            Self.job("a2", campaign: "spring", tokens: 200..<300),
            Self.job("b1", campaign: "autumn", tokens: 300..<310),
        ])
        harness.consume(Self.perUser(0..<3), topic: CoreHarness.topics.priority)
        let sent = harness.pool.unanswered.map(\.request.token.hex)
        #expect(
            Set(sent)
                == Set(
                    (300..<310).map(Fixtures.tokenHex) + (0..<3).map { Fixtures.tokenHex(EngineJobs.perUserToken($0)) })
        )
        harness.answer { _ in ScriptedPool.accepted }
        #expect(harness.committed.count == 6, "a2, b1 and the per-user jobs commit")
        #expect(harness.published.isEmpty, "cancelled notifications are never dead-lettered")
        let spring = try #require(harness.core.campaigns.counters(for: "spring"))
        #expect(spring.accepted == 30)
        #expect(spring.cancelled == 270)
        #expect(spring.sent + spring.cancelled == 300, "sent + cancelled = total")
        #expect(spring.retrying == 0, "the held retries' balance went back with their cancel")
        #expect(harness.core.campaigns.counters(for: "autumn")?.accepted == 10)
    }

    @Test("cancel drops rate-delayed sends and retry-topic records of the campaign, and the records commit")
    func cancelDropsDelayedAndRetryRecords() throws {
        let harness = try CoreHarness(streams: 100) { $0.apps["news"]?.rateLimit = RateLimit(perSecond: 10, burst: 10) }
        harness.consume([Self.job("a1", campaign: "spring", tokens: 0..<50)])
        #expect(harness.pool.unanswered.count <= 11)
        // Some wait in the app's limit (up to its booking horizon), the rest in the lane.
        #expect(harness.statistics.delayed > 0)
        let unsent = 50 - harness.pool.unanswered.count
        let due = UTCTimestamp.now().millisecondsSince1970 + 60_000
        let retryRecord =
            #"{"id":"r1","app":"news","campaign_id":"spring","payload":{"aps":{}},"tokens":["\#(Fixtures.tokenHex(90))"],"retry":{"attempt":2,"due_at_ms":\#(due)}}"#
        harness.consume([retryRecord], topic: CoreHarness.topics.retry)
        #expect(harness.statistics.retryDepth == 1)
        harness.core.controlChanged(Self.state(("spring", .cancel)))
        harness.loop.run()
        #expect(harness.statistics.delayed == 0)
        #expect(harness.statistics.retryDepth == 0)
        #expect(harness.statistics.cancelled == unsent + 1)
        // A retry record read after the cancel completes at once, due or not.
        harness.consume([retryRecord.replacingOccurrences(of: "r1", with: "r2")], topic: CoreHarness.topics.retry)
        #expect(harness.statistics.cancelled == unsent + 2)
        harness.answer { _ in ScriptedPool.accepted }
        harness.advance(by: .seconds(10))
        #expect(harness.pool.unanswered.isEmpty)
        #expect(Set(harness.committed.map(\.topic)) == [CoreHarness.topics.jobs, CoreHarness.topics.retry])
        #expect(harness.committed.count == 3)
    }

    @Test(
        "pause holds the campaign's work outside the window, other campaigns and per-user pushes go on, resume sends every held one once"
    )
    func pauseHoldsAndResumeSends() throws {
        let harness = try CoreHarness(streams: 10)
        harness.consume([Self.job("a1", campaign: "spring", tokens: 0..<200)])
        harness.core.controlChanged(Self.state(("spring", .pause)))
        harness.loop.run()
        #expect(harness.statistics.held == 180, "all but the 20 in flight")
        var sent = harness.pool.unanswered.map(\.request.token.hex)
        harness.answer { _ in ScriptedPool.accepted }
        #expect(harness.pool.unanswered.isEmpty, "nothing of the paused campaign goes out")
        // Held work is outside the window: another campaign and per-user pushes flow.
        harness.consume([Self.job("b1", campaign: "autumn", tokens: 300..<400)])
        harness.consume(Self.perUser(0..<5), topic: CoreHarness.topics.priority)
        var others = 0
        for _ in 0..<20 where !harness.pool.unanswered.isEmpty {
            others += harness.answer { _ in ScriptedPool.accepted }
        }
        #expect(others == 105)
        harness.consume([Self.job("a2", campaign: "spring", tokens: 200..<220)])
        #expect(harness.pool.unanswered.isEmpty, "a job of the paused campaign read now is held too")
        #expect(harness.statistics.held == 200)
        harness.advance(by: .seconds(2))
        #expect(harness.committed.count == 6, "b1 and the per-user jobs; the held jobs wait")
        var resumed = Self.state(("spring", .pause))
        resumed.apply(
            CampaignCommand(
                campaignID: "spring", action: .resume, by: "test", at: UTCTimestamp(millisecondsSince1970: 2_000)))
        harness.core.controlChanged(resumed)
        harness.loop.run()
        for _ in 0..<30 where !harness.pool.unanswered.isEmpty {
            sent += harness.pool.unanswered.map(\.request.token.hex)
            harness.answer { _ in ScriptedPool.accepted }
        }
        #expect(sent.count == 220)
        #expect(Set(sent) == Set((0..<220).map(Fixtures.tokenHex)), "every token once")
        #expect(harness.statistics.held == 0)
        #expect(harness.committed.count == 8)
        #expect(harness.core.campaigns.counters(for: "spring")?.accepted == 220)
    }

    @Test(
        "a cancel after a pause finishes the paused jobs (held whole, by index) and the held notifications as cancelled; every job commits"
    )
    func cancelAfterPause() throws {
        let harness = try CoreHarness(streams: 10)
        harness.consume([Self.job("a1", campaign: "spring", tokens: 0..<200)])
        harness.core.controlChanged(Self.state(("spring", .pause)))
        harness.loop.run()
        harness.answer { _ in ScriptedPool.accepted }
        harness.consume([Self.job("a2", campaign: "spring", tokens: 200..<300)])
        #expect(harness.statistics.held == 280, "a1's rest and all of a2, paused whole")
        harness.core.controlChanged(Self.state(("spring", .pause), ("spring", .cancel)))
        harness.loop.run()
        harness.advance(by: .seconds(2))
        #expect(harness.pool.unanswered.isEmpty, "nothing of the cancelled campaign goes out")
        #expect(harness.statistics.held == 0)
        #expect(harness.statistics.cancelled == 280)
        #expect(harness.committed.map(\.offset) == [0, 1], "both jobs complete and commit")
        #expect(harness.core.campaigns.counters(for: "spring")?.cancelled == 280)
    }

    @Test(
        "beyond the hold queue's bound, or held for max_held_delay, paused work goes to the retry topic (no attempt used) and its job commits"
    )
    func holdBoundsHandOff() throws {
        let harness = try CoreHarness(streams: 10) { $0.retry.maximumHeldNotifications = 50 }
        harness.core.controlChanged(Self.state(("spring", .pause)))
        let before = UTCTimestamp.now().millisecondsSince1970
        harness.consume([Self.job("a1", campaign: "spring", tokens: 0..<200)])
        #expect(harness.pool.unanswered.isEmpty)
        #expect(harness.statistics.held == 50)
        #expect(harness.statistics.heldHandedOff == 150)
        let first = harness.acknowledgeRecords()
        #expect(first.map(\.kind) == [.retry])
        let text = String(decoding: first.first?.record.value ?? [], as: UTF8.self)
        let due = try #require(text.firstMatch(of: /"due_at_ms":(\d+)/).flatMap { Int64($0.1) })
        #expect(due >= before + 4_000, "due a few seconds ahead")
        #expect(text.contains(#""attempt":1"#), "no attempt used")
        #expect(harness.committed.isEmpty, "50 are still held")
        harness.advance(by: .seconds(5))
        #expect(harness.statistics.held == 0, "held for max_held_delay")
        #expect(harness.acknowledgeRecords().map(\.kind) == [.retry])
        #expect(harness.committed.map(\.offset) == [0], "the paused job commits: nothing pins the partition")
        #expect(harness.pool.unanswered.isEmpty)
        // The hand-off comes back due: still paused, it is held again, not sent.
        let back = text.replacing(#/"due_at_ms":\d+/#, with: #""due_at_ms":\#(before - 1)"#)
        harness.consume([back], topic: CoreHarness.topics.retry)
        #expect(harness.pool.unanswered.isEmpty)
        #expect(harness.statistics.held == 50)
    }

    @Test("an older snapshot never replaces a newer one, and jobs without campaign_id are never checked")
    func olderSnapshotIgnored() throws {
        let harness = try CoreHarness(streams: 10)
        var newer = Self.state(("spring", .cancel))
        newer.apply(
            CampaignCommand(
                campaignID: "other", action: .pause, by: "test", at: UTCTimestamp(millisecondsSince1970: 5_000)))
        harness.core.controlChanged(newer)
        harness.core.controlChanged(Self.state(("spring", .cancel)))
        #expect(harness.core.campaigns.commands == newer)
        harness.consume(Self.perUser(0..<3), topic: CoreHarness.topics.priority)
        harness.consume([CoreHarness.campaign("plain", tokens: 0..<5)])
        #expect(harness.pool.unanswered.count == 8)
    }

    @Test("a retry record of a paused campaign waits for its due time like any other, then is held, not sent")
    func pausedRetryRecordHeldWhenDue() throws {
        let harness = try CoreHarness(streams: 10)
        harness.core.controlChanged(Self.state(("spring", .pause)))
        let due = UTCTimestamp.now().millisecondsSince1970 + 1_000
        let record =
            #"{"id":"r1","app":"news","campaign_id":"spring","payload":{"aps":{}},"tokens":["\#(Fixtures.tokenHex(7))"],"retry":{"attempt":2,"due_at_ms":\#(due)}}"#
        harness.consume([record], topic: CoreHarness.topics.retry)
        #expect(harness.statistics.retryDepth == 1)
        harness.advance(by: .milliseconds(1_200))
        #expect(harness.pool.unanswered.isEmpty, "released by the retry scheduler, diverted before dispatch")
        #expect(harness.statistics.retryDepth == 0)
        #expect(harness.statistics.held == 1)
    }

    @Test("a drain hands held work to the retry topic and its jobs commit once the records are acknowledged")
    func drainHandsOffHeldWork() throws {
        let harness = try CoreHarness(streams: 10)
        harness.consume([Self.job("a1", campaign: "spring", tokens: 0..<50)])
        harness.core.controlChanged(Self.state(("spring", .pause)))
        harness.loop.run()
        #expect(harness.statistics.held == 30)
        let drained = harness.loop.makePromise(of: Void.self)
        harness.core.beginDrain(within: .seconds(10), promise: drained)
        harness.loop.run()
        harness.answer { _ in ScriptedPool.accepted }
        let records = harness.acknowledgeRecords()
        #expect(records.map(\.kind) == [.retry])
        #expect(harness.statistics.held == 0)
        // The paused lane job is held whole (``PausedJobs``), so the drain hands its rest off as
        // it does a lane job's.
        #expect(harness.statistics.handedOffOnDrain == 30)
        #expect(harness.committed.map(\.offset) == [0], "the begun job completes: 20 sent, 30 handed off")
        let finished = Mutex(false)
        drained.futureResult.whenSuccess { finished.withLock { $0 = true } }
        harness.loop.run()
        #expect(finished.withLock { $0 }, "the drain ends once the hand-off is acknowledged")
    }

    @Test(
        "a revoke takes a partition's held work with its other work: a begun job's goes to the retry topic, so it commits"
    )
    func revokeTakesHeldWork() throws {
        let harness = try CoreHarness(streams: 10)
        harness.consume([Self.job("a1", campaign: "spring", tokens: 0..<50)])
        harness.core.controlChanged(Self.state(("spring", .pause)))
        harness.loop.run()
        #expect(harness.statistics.held == 30)
        harness.core.revoking([SourcePosition.Partition(topic: CoreHarness.topics.jobs, partition: 0)]) {}
        harness.loop.run()
        #expect(harness.statistics.held == 0)
        #expect(harness.statistics.handedOffOnRevoke == 30)
        harness.answer { _ in ScriptedPool.accepted }
        harness.acknowledgeRecords()
        #expect(harness.committed.map(\.offset) == [0])
    }
}
