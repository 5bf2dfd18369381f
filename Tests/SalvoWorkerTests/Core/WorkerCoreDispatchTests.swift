import NIOCore
import NIOEmbedded
import SalvoAPNs
import SalvoKafka
import SalvoTestSupport
import Testing

@testable import SalvoWorker

/// The window, rate limits, retries, drain and revoke, as timelines on a manual clock.
@Suite("WorkerCore: dispatch, drain and revoke")
struct WorkerCoreDispatchTests {
    @Test(
        "the window bounds what is in flight; each answer round refills it; the job commits once every notification is done"
    )
    func windowAccounting() throws {
        let harness = try CoreHarness(streams: 10)
        #expect(harness.core.window == 20, "10 streams and a buffer as large (at most the credit)")
        harness.consume([CoreHarness.campaign("c1", tokens: 0..<200)])
        #expect(harness.pool.unanswered.count == 20)
        for _ in 0..<9 {
            #expect(harness.answer { _ in ScriptedPool.accepted } == 20)
            #expect(harness.pool.unanswered.count == 20)
        }
        #expect(harness.committed.isEmpty)
        #expect(harness.answer { _ in ScriptedPool.accepted } == 20)
        #expect(harness.committed.map(\.offset) == [0])
        #expect(harness.statistics.delivered == 200)
    }

    @Test("held retries count against the window: retries waiting for their backoff keep new work out")
    func heldRetriesFillTheWindow() throws {
        let harness = try CoreHarness(streams: 10) { $0.poolHealth.minimumSamples = 1_000 }
        harness.consume([CoreHarness.campaign("c1", tokens: 0..<200)])
        harness.answer { _ in ScriptedPool.serviceUnavailable }
        #expect(harness.statistics.retryDepth == 20)
        #expect(harness.pool.unanswered.isEmpty, "the window is full of held retries: nothing new goes out")
        harness.advance(by: .seconds(1))
        #expect(harness.pool.unanswered.count == 20, "the retries go out again when due")
        #expect(Set(harness.pool.unanswered.map(\.request.token.hex)) == Set((0..<20).map(Fixtures.tokenHex)))
    }

    @Test(
        "with no room for retries in memory, a retry is handed to the retry topic and its job completes once Kafka acknowledged it"
    )
    func retryHandOff() throws {
        let harness = try CoreHarness(streams: 10) { $0.retry.maximumHeldNotifications = 0 }
        harness.consume([CoreHarness.campaign("c1", tokens: 0..<5)])
        harness.answer {
            $0.token.hex == Fixtures.tokenHex(3)
                ? .rejected(APNsResponse(status: 429, reason: .tooManyRequests)) : ScriptedPool.accepted
        }
        let handedOff = harness.published
        #expect(handedOff.map(\.kind) == [.retry])
        #expect(handedOff.first?.record.value.count ?? 0 > 0)
        let value = String(decoding: handedOff.first?.record.value ?? [], as: UTF8.self)
        #expect(value.contains(Fixtures.tokenHex(3)))
        #expect(harness.committed.isEmpty, "the job waits for the retry record's acknowledgement")
        harness.acknowledgeRecords()
        #expect(harness.committed.map(\.offset) == [0])
        #expect(harness.statistics.handedOff == 1)
    }

    @Test("an app rate limit delays sends without dropping or repeating any")
    func rateLimitDelays() throws {
        let harness = try CoreHarness(streams: 100) { configuration in
            configuration.apps["news"]?.rateLimit = RateLimit(perSecond: 50, burst: 50)
        }
        harness.consume([CoreHarness.campaign("c1", tokens: 0..<150)])
        var sent: [String] = []
        sent += harness.pool.unanswered.map(\.request.token.hex)
        #expect(sent.count <= 51)
        for _ in 0..<40 {
            harness.answer { _ in ScriptedPool.accepted }
            harness.advance(by: .milliseconds(100))
            sent += harness.pool.unanswered.map(\.request.token.hex)
        }
        harness.answer { _ in ScriptedPool.accepted }
        #expect(sent.count == 150)
        #expect(Set(sent).count == 150, "no notification sent twice")
        #expect(harness.committed.map(\.offset) == [0])
        #expect(harness.statistics.rateLimited > 0)
    }

    @Test(
        "drain: in-flight sends finish, then held retries go to the retry topic, and the drain ends once Kafka acknowledged them"
    )
    func drainOrder() throws {
        let harness = try CoreHarness(streams: 10) { $0.poolHealth.minimumSamples = 1_000 }
        harness.consume([CoreHarness.campaign("c1", tokens: 0..<20)])
        harness.pool.answerAll {
            $0.token.hex == Fixtures.tokenHex(0) ? ScriptedPool.serviceUnavailable : ScriptedPool.accepted
        }
        harness.loop.run()
        harness.consume([CoreHarness.campaign("c2", tokens: 100..<110)])
        #expect(harness.pool.unanswered.count == 10)

        let promise = harness.loop.makePromise(of: Void.self)
        var drained = false
        promise.futureResult.whenSuccess { drained = true }
        harness.core.beginDrain(within: .seconds(10), promise: promise)
        harness.loop.run()
        #expect(harness.published.isEmpty, "held retries wait until in-flight work is answered")
        harness.answer { _ in ScriptedPool.accepted }
        let handedOff = harness.published
        #expect(handedOff.map(\.kind) == [.retry])
        #expect(!drained)
        harness.acknowledgeRecords()
        #expect(drained)
        #expect(Set(harness.committed.map(\.offset)) == [0, 1], "a handed-off notification is done for its job")
    }

    @Test(
        "drain: a job that had begun sending hands its unsent notifications to the retry topic and commits; a job not begun stays open"
    )
    func drainHandsOffBegunJobs() throws {
        let harness = try CoreHarness(streams: 10)
        harness.consume([
            CoreHarness.campaign("begun", tokens: 0..<200), CoreHarness.campaign("waiting", tokens: 1_000..<1_050),
        ])
        #expect(harness.pool.unanswered.count == 20)
        let promise = harness.loop.makePromise(of: Void.self)
        var drained = false
        promise.futureResult.whenSuccess { drained = true }
        harness.core.beginDrain(within: .seconds(10), promise: promise)
        harness.loop.run()
        #expect(harness.answer { _ in ScriptedPool.accepted } == 20, "in-flight sends finish; nothing new goes out")
        let handedOff = harness.published
        #expect(handedOff.map(\.kind) == [.retry])
        let value = String(decoding: handedOff.first?.record.value ?? [], as: UTF8.self)
        #expect(value.contains(Fixtures.tokenHex(20)) && value.contains(Fixtures.tokenHex(199)))
        #expect(!value.contains(Fixtures.tokenHex(19)), "what was sent is not handed off")
        #expect(!value.contains(Fixtures.tokenHex(1_000)), "a job not begun is not handed off")
        #expect(harness.statistics.handedOffOnDrain == 180)
        harness.acknowledgeRecords()
        #expect(drained)
        #expect(
            harness.committed.map(\.offset) == [0], "the begun job commits; the waiting one stays for the next owner")
    }

    @Test(
        "revoke: the partition's queued, held and delayed work stops at once and late answers do not complete the old entry"
    )
    func revoke() throws {
        let harness = try CoreHarness(streams: 10) { configuration in
            configuration.poolHealth.minimumSamples = 1_000
            configuration.apps["news"]?.rateLimit = RateLimit(perSecond: 100, burst: 15)
        }
        harness.consume([CoreHarness.campaign("c1", tokens: 0..<200)])
        // Some answers ask for a retry; the rate limit delays the rest of the window.
        harness.answer { $0.token.hex.hasSuffix("1") ? ScriptedPool.serviceUnavailable : ScriptedPool.accepted }
        var stats = harness.statistics
        #expect(stats.retryDepth > 0, "retries held")
        #expect(stats.delayed > 0, "sends delayed by the rate limit, counted apart from retries")
        harness.core.revoked([SourcePosition.Partition(topic: CoreHarness.topics.jobs, partition: 0)])
        stats = harness.statistics
        #expect(stats.retryDepth == 0)
        #expect(stats.delayed == 0)
        #expect(stats.droppedOnRevoke > 0)
        let sentAfterRevoke = harness.answer { _ in ScriptedPool.accepted }
        for _ in 0..<20 {
            harness.advance(by: .seconds(1))
            #expect(harness.answer { _ in ScriptedPool.accepted } == 0, "nothing more of the revoked partition is sent")
        }
        #expect(sentAfterRevoke <= 20, "only what was already in flight (at most the window) is answered")
        #expect(harness.committed.isEmpty)
    }
}
