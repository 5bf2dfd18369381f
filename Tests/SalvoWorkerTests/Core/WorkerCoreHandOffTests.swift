import Foundation
import NIOEmbedded
import SalvoKafka
import Synchronization
import Testing

@testable import SalvoWorker

/// What a revoke leaves its partitions' next owner, as timelines: a final checkpoint Kafka
/// acknowledged before the commit, hand-offs due at once unless they wait for a retry, and
/// per-user work handed back to the per-user topic.
@Suite("WorkerCore: hand-offs and final checkpoints")
struct WorkerCoreHandOffTests {
    static let jobs = SourcePosition.Partition(topic: CoreHarness.topics.jobs, partition: 0)
    static let perUser = SourcePosition.Partition(topic: CoreHarness.topics.priority, partition: 0)

    @Test(
        "a revoke writes its partitions' final checkpoint once the work settled, and finishes once Kafka acknowledged it"
    )
    func revokeWaitsForTheFinalCheckpoint() throws {
        let offsets = PartitionCheckpoint.Offsets(from: 0, to: 2, open: [1])
        var access = CheckpointAccess(lookup: { _ in nil }, topic: "salvo.progress", group: { _ in "g" })
        access.offsets = { _ in [Self.jobs: offsets] }
        let harness = try CoreHarness(streams: 10, checkpoints: access)
        harness.core.start()
        harness.consume([CoreHarness.campaign("c1", tokens: 0..<200)])
        let finished = Mutex(false)
        harness.core.revoking([Self.jobs]) { finished.withLock { $0 = true } }
        harness.loop.run()
        harness.answer { _ in ScriptedPool.accepted }
        harness.acknowledgeRecords()  // the hand-off of the job's rest
        harness.advance(by: .milliseconds(10))
        let final = harness.published.filter { $0.kind == .progress }
        let checkpoint = final.last.flatMap {
            PartitionCheckpoint.decode(key: $0.record.key, value: $0.record.value, group: "g")
        }
        #expect(checkpoint?.offsets == offsets, "the complete offsets, for a commit that may fail")
        #expect(!finished.withLock { $0 }, "the final checkpoint is not acknowledged yet")
        harness.acknowledgeRecords()
        harness.advance(by: .milliseconds(10))
        #expect(finished.withLock { $0 }, "acknowledged: the revoke commits and gives the partition up")
    }

    @Test("sends waiting for the app's rate limit are handed off due now; per-user ones go back to the per-user topic")
    func rateLimitedHandOffsAreDueNow() throws {
        let harness = try CoreHarness(streams: 100) { $0.apps["news"]?.rateLimit = RateLimit(perSecond: 10, burst: 10) }
        let pushes = (0..<50).map { CoreHarness.campaign("u\($0)", tokens: $0..<$0 + 1) }
        harness.consume(pushes, topic: CoreHarness.topics.priority)
        #expect(harness.pool.unanswered.count == 10, "the burst; 40 wait for the limiter, up to 4 s")
        harness.core.revoking([Self.perUser]) {}
        harness.loop.run()
        let handedOff = harness.published.filter { $0.kind == .retry }
        #expect(handedOff.count == 40)
        #expect(handedOff.allSatisfy { $0.topic == CoreHarness.topics.priority }, "back through the per-user lane")
        let now = UTCTimestamp.now().millisecondsSince1970
        for record in handedOff {
            let object = try JSONSerialization.jsonObject(with: Data(record.record.value)) as? [String: Any]
            let due = ((object?["retry"] as? [String: Any])?["due_at_ms"] as? NSNumber)?.int64Value ?? .max
            #expect(due <= now + 100, "due at once, not at its pacing time")
        }
    }

    @Test(
        "a per-user hand-off read back from the per-user topic is sent through the per-user lane, continuing its attempts"
    )
    func perUserHandOffIsReadBack() throws {
        let harness = try CoreHarness(streams: 100)
        let handedOff =
            #"{"id":"u1","app":"news","payload":{"aps":{"alert":"hi"}},"tokens":["\#(Fixtures.tokenHex(1))"],"retry":{"attempt":2,"due_at_ms":0}}"#
        harness.consume([handedOff], topic: CoreHarness.topics.priority)
        #expect(harness.pool.unanswered.map(\.request.token.hex) == [Fixtures.tokenHex(1)])
        harness.answer { _ in ScriptedPool.accepted }
        #expect(harness.committed.map(\.topic) == [CoreHarness.topics.priority])
    }
}

/// The app's rate limit books campaign sends at most ``WorkerCore/campaignBookingHorizon`` ahead:
/// the rest wait in their lane, so a per-user push is not queued behind them.
@Suite("WorkerCore: the app limit's booking horizon")
struct WorkerCoreBookingHorizonTests {
    @Test("a campaign books at most 100 ms of its app's limit ahead; a per-user push then goes next")
    func campaignsBookLittleAhead() throws {
        let harness = try CoreHarness(streams: 1_000) {
            $0.apps["news"]?.rateLimit = RateLimit(perSecond: 100, burst: 10)
        }
        harness.consume([CoreHarness.campaign("c1", tokens: 0..<1_000)])
        #expect(harness.pool.unanswered.count == 10, "the burst")
        #expect(harness.statistics.delayed <= 11, "100 ms of 100/s booked ahead, not the window's 1,100")
        harness.consume([CoreHarness.campaign("u1", tokens: 5_000..<5_001)], topic: CoreHarness.topics.priority)
        harness.advance(by: .milliseconds(250))
        let sent = harness.pool.unanswered.map(\.request.token.hex)
        #expect(sent.contains(Fixtures.tokenHex(5_000)), "the per-user push went within 250 ms")
        for _ in 0..<100 { harness.advance(by: .milliseconds(10)) }
        #expect(harness.pool.unanswered.count > 100, "the campaign goes on at the limit's rate")
    }
}
