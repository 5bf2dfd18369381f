import NIOEmbedded
import SalvoAPNs
import SalvoKafka
import Synchronization
import Testing

@testable import SalvoWorker

/// The rules for revokes and failing commits, as timelines on the core.
@Suite("WorkerCore: clean revokes and the commit gate")
struct WorkerCoreRevokeTests {
    static let partition0 = SourcePosition.Partition(topic: CoreHarness.topics.jobs, partition: 0)

    static func perUserJobs(_ range: Range<Int>) -> [String] {
        range.map { EngineJobs.perUser(id: "u\($0)", token: EngineJobs.perUserToken($0)) }
    }

    @Test(
        "a revoke stops queued work at once, waits for the in-flight answers, and those jobs commit before it finishes")
    func revokeWaitsForInFlight() throws {
        let harness = try CoreHarness(streams: 10)
        harness.consume(Self.perUserJobs(0..<100))
        #expect(harness.pool.unanswered.count == 20, "the window: 10 streams plus a buffer as large")
        let finished = Mutex(false)
        harness.core.revoking([Self.partition0]) { finished.withLock { $0 = true } }
        harness.loop.run()
        #expect(harness.statistics.droppedOnRevoke == 80, "the queued jobs stop")
        harness.advance(by: .milliseconds(20))
        #expect(!finished.withLock { $0 }, "20 requests are still in flight")
        #expect(harness.answer { _ in ScriptedPool.accepted } == 20)
        harness.advance(by: .milliseconds(10))
        #expect(finished.withLock { $0 }, "everything in flight answered")
        #expect(harness.committed.map(\.offset) == Array(0..<20), "the answered jobs are marked done before the commit")
        harness.core.revoked([Self.partition0])
        harness.advance(by: .seconds(1))
        #expect(harness.answer { _ in ScriptedPool.accepted } == 0, "the queued jobs are left to the next owner")
        #expect(harness.statistics.unsettledOnRevoke == 0)
    }

    @Test("a revoke hands the rest of a begun job to the retry topic, so the job commits before the partition moves")
    func revokeHandsOffBegunJob() throws {
        let harness = try CoreHarness(streams: 10)
        harness.consume([CoreHarness.campaign("c1", tokens: 0..<200), CoreHarness.campaign("c2", tokens: 200..<300)])
        #expect(harness.pool.unanswered.count == 20)
        let finished = Mutex(false)
        harness.core.revoking([Self.partition0]) { finished.withLock { $0 = true } }
        harness.loop.run()
        let stats = harness.statistics
        #expect(stats.handedOffOnRevoke == 180, "the unsent rest of the begun job")
        #expect(stats.droppedOnRevoke == 100, "the job not begun is left to the next owner")
        let handedOff = harness.published
        #expect(handedOff.map(\.kind) == [.retry])
        #expect(harness.answer { _ in ScriptedPool.accepted } == 20)
        harness.advance(by: .milliseconds(10))
        #expect(!finished.withLock { $0 }, "the retry record is not acknowledged yet")
        harness.acknowledgeRecords()
        harness.advance(by: .milliseconds(10))
        #expect(finished.withLock { $0 })
        #expect(harness.committed.map(\.offset) == [0], "the begun job commits; the other stays for the next owner")
    }

    @Test("a revoke waits for the records of rejected notifications to be acknowledged")
    func revokeWaitsForRecords() throws {
        let harness = try CoreHarness(streams: 10)
        harness.consume(Self.perUserJobs(0..<5))
        let finished = Mutex(false)
        harness.core.revoking([Self.partition0]) { finished.withLock { $0 = true } }
        harness.answer { _ in .rejected(APNsResponse(status: 410, reason: .unregistered, timestampMilliseconds: 1)) }
        harness.advance(by: .milliseconds(10))
        #expect(!finished.withLock { $0 }, "feedback events not yet acknowledged")
        harness.acknowledgeRecords()
        harness.advance(by: .milliseconds(10))
        #expect(finished.withLock { $0 })
        #expect(harness.committed.count == 5)
    }

    @Test("records handed over while a revoke is under way are left to the next owner")
    func recordsDuringRevokeAreIgnored() throws {
        let harness = try CoreHarness(streams: 10)
        let finished = Mutex(false)
        harness.core.revoking([Self.partition0]) { finished.withLock { $0 = true } }
        harness.loop.run()
        #expect(finished.withLock { $0 }, "nothing in flight: done at once")
        harness.consume(Self.perUserJobs(0..<5))
        #expect(harness.pool.unanswered.isEmpty)
        #expect(harness.committed.isEmpty)
    }

    @Test("a revoke given up before the answers came counts the unsettled jobs; their late answers complete nothing")
    func revokeAfterTheLimit() throws {
        let harness = try CoreHarness(streams: 10)
        harness.consume(Self.perUserJobs(0..<5))
        harness.core.revoking([Self.partition0]) {}
        harness.core.revoked([Self.partition0])
        #expect(harness.statistics.unsettledOnRevoke == 5)
        harness.answer { _ in ScriptedPool.accepted }
        #expect(harness.committed.isEmpty, "the consumer gave the partition up: late answers commit nothing")
    }

    @Test(
        "while commits fail, intake and lane dispatch stop once the uncommitted notifications reach the bound, and resume on a successful commit"
    )
    func commitGate() throws {
        let harness = try CoreHarness(streams: 100) { $0.maximumUncommittedNotifications = 100 }
        harness.core.commitFinished(.campaign, succeeded: false)
        harness.consume(Self.perUserJobs(0..<164))
        #expect(
            harness.answer { _ in ScriptedPool.accepted } == 164, "the whole window went out before anything completed")
        #expect(harness.core.commits.isClosed, "164 completed, none committed")
        #expect(harness.statistics.commitGateClosures == 0, "closure is logged when a commit reports, not counted here")
        let resumed = harness.consume(Self.perUserJobs(164..<200))
        #expect(!resumed, "the consumer task waits")
        #expect(harness.answer { _ in ScriptedPool.accepted } == 0, "no new lane work while the gate is closed")
        harness.core.commitFinished(.campaign, succeeded: false)
        #expect(harness.statistics.commitGateClosures == 1, "the next failed commit reports the closure")
        harness.core.commitFinished(.campaign, succeeded: false)
        #expect(harness.statistics.commitGateClosures == 1, "still closed: not a new closure")
        harness.core.commitFinished(.campaign, succeeded: true)
        harness.loop.run()
        #expect(!harness.core.commits.isClosed)
        #expect(harness.answer { _ in ScriptedPool.accepted } == 36, "the queued jobs go out once a commit succeeded")
    }

    @Test("successful commits keep the gate open however much completes")
    func commitGateStaysOpenWhileCommitsSucceed() throws {
        let harness = try CoreHarness(streams: 100) { $0.maximumUncommittedNotifications = 100 }
        harness.consume(Self.perUserJobs(0..<300))
        var sent = 0
        for _ in 0..<5 {
            sent += harness.answer { _ in ScriptedPool.accepted }
            harness.core.commitFinished(.campaign, succeeded: true)
            harness.loop.run()
        }
        #expect(sent == 300)
    }
}

extension WorkerCoreRevokeTests {
    @Test(
        "a commit that never answers counts as failing once it is overdue: the gate closes without a failed commit report"
    )
    func overdueCommitClosesTheGate() throws {
        let harness = try CoreHarness(streams: 100) { $0.maximumUncommittedNotifications = 100 }
        harness.core.start()  // the statistics timer checks for overdue commits
        harness.consume(Self.perUserJobs(0..<300))
        #expect(harness.answer { _ in ScriptedPool.accepted } == 164)
        #expect(!harness.core.commits.isClosed, "no commit has failed yet")
        harness.advance(by: .seconds(1))
        #expect(!harness.core.commits.isClosed, "not yet overdue (2 s)")
        _ = harness.answer { _ in ScriptedPool.accepted }
        harness.advance(by: .seconds(2))
        #expect(harness.core.commits.isClosed, "no successful commit for over 2 s")
        #expect(harness.statistics.commitGateClosures == 1)
        harness.consume(Self.perUserJobs(300..<400))
        #expect(harness.answer { _ in ScriptedPool.accepted } == 0, "nothing new while closed")
        harness.core.commitFinished(.campaign, succeeded: true)
        harness.loop.run()
        #expect(!harness.core.commits.isClosed)
        #expect(harness.answer { _ in ScriptedPool.accepted } == 100, "sent once a commit succeeded")
    }
}
