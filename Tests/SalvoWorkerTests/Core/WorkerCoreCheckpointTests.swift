import SalvoAPNs
import SalvoKafka
import Synchronization
import Testing

@testable import SalvoWorker

/// The checkpoint rules as timelines: what a partition checkpoint records (each open job's done
/// notifications, records acknowledged; a straggler does not hold the rest back), when it is
/// written (interval, count), how a job read again resumes from it, and how a job's unconfirmed
/// sends are bounded.
@Suite("WorkerCore: partition checkpoints")
struct WorkerCoreCheckpointTests {
    static let group = "salvo-worker"

    /// A harness that writes checkpoints to `salvo.progress` and reads them from `known`.
    static func harness(
        streams: Int = 10, known: [PartitionCheckpoint] = [], newestWrite: Int64 = .min,
        configure: (inout WorkerConfiguration) -> Void = { _ in }
    ) throws -> CoreHarness {
        let table = Dictionary(uniqueKeysWithValues: known.map { ($0.partitionKey, $0) })
        let access = CheckpointAccess(
            lookup: { table[$0] }, newestWrite: { _ in newestWrite }, topic: "salvo.progress", group: { _ in group })
        let harness = try CoreHarness(streams: streams, checkpoints: access, configure: configure)
        harness.core.start()
        return harness
    }

    static func checkpoints(in records: [PendingRecord]) -> [PartitionCheckpoint] {
        records.filter { $0.kind == .progress }.compactMap {
            PartitionCheckpoint.decode(key: $0.record.key, value: $0.record.value, group: group)
        }
    }

    /// The done ranges of the one job each checkpoint records.
    static func done(in records: [PendingRecord]) -> [[Range<Int>]] {
        checkpoints(in: records).map { $0.jobs.first?.done ?? [] }
    }

    static func partition(
        _ offsets: PartitionCheckpoint.Offsets? = nil, jobs: [JobCheckpoint] = [], written: Int64 = 0
    )
        -> PartitionCheckpoint
    {
        PartitionCheckpoint(
            topic: CoreHarness.topics.jobs, partition: 0, offsets: offsets, jobs: jobs, writtenAtMilliseconds: written)
    }

    @Test(
        "the done notifications of a partly sent job are written once per checkpoint interval, and only when they moved"
    )
    func doneIsWritten() throws {
        let harness = try Self.harness()
        harness.consume([CoreHarness.campaign("c1", tokens: 0..<200)])
        harness.answer { _ in ScriptedPool.accepted }
        harness.answer { _ in ScriptedPool.accepted }
        harness.advance(by: .milliseconds(300))
        var written = Self.checkpoints(in: harness.acknowledgeRecords())
        #expect(written.map(\.jobs) == [[JobCheckpoint(offset: 0, jobID: "c1", done: [0..<40])]])
        harness.advance(by: .milliseconds(300))
        #expect(Self.checkpoints(in: harness.acknowledgeRecords()).isEmpty, "nothing moved: nothing written")
        harness.answer { _ in ScriptedPool.accepted }
        harness.advance(by: .milliseconds(300))
        written = Self.checkpoints(in: harness.acknowledgeRecords())
        #expect(written.map { $0.jobs.map(\.doneCount) } == [[60]])
    }

    @Test(
        "checkpoints are due every checkpoint interval (100 ms by default) from the last due time, not from the tick that wrote"
    )
    func checkpointCadence() throws {
        let harness = try Self.harness()
        harness.consume([CoreHarness.campaign("c1", tokens: 0..<200)])
        harness.answer { _ in ScriptedPool.accepted }
        #expect(Self.doneCounts(after: .milliseconds(50), in: harness).isEmpty, "not due before 100 ms")
        #expect(Self.doneCounts(after: .milliseconds(50), in: harness) == [20])
        for expected in [40, 60, 80] {
            harness.answer { _ in ScriptedPool.accepted }
            #expect(Self.doneCounts(after: .milliseconds(100), in: harness) == [expected])
        }

        // 120 ms against 50 ms ticks: due at 120 (written at the 150 ms tick), then at 240 (the
        // 250 ms tick). Counting from the writing tick would make the second due at 270.
        let offset = try Self.harness(configure: { $0.checkpointInterval = .milliseconds(120) })
        offset.consume([CoreHarness.campaign("c1", tokens: 0..<200)])
        offset.answer { _ in ScriptedPool.accepted }
        #expect(Self.doneCounts(after: .milliseconds(100), in: offset).isEmpty, "a 120 ms interval: nothing at 100 ms")
        #expect(Self.doneCounts(after: .milliseconds(50), in: offset) == [20])
        offset.answer { _ in ScriptedPool.accepted }
        #expect(Self.doneCounts(after: .milliseconds(100), in: offset) == [40], "written at 250 ms")
    }

    /// Moves `harness` on by `duration` and returns the done counts of the checkpoints written
    /// meanwhile (acknowledging every record).
    static func doneCounts(after duration: Duration, in harness: CoreHarness) -> [Int] {
        harness.advance(by: duration)
        return checkpoints(in: harness.acknowledgeRecords()).compactMap { $0.jobs.first?.doneCount }
    }

    @Test(
        "a job's checkpoint is written as soon as it finished kafka.checkpoint_notifications more, before the interval")
    func countTriggersACheckpoint() throws {
        let harness = try Self.harness(streams: 100, configure: { $0.checkpointNotifications = 50 })
        harness.consume([CoreHarness.campaign("c1", tokens: 0..<500)])
        harness.answer { _ in ScriptedPool.accepted }
        let written = Self.checkpoints(in: harness.acknowledgeRecords())
        #expect(
            written.map { $0.jobs.map(\.doneCount) } == [[50], [100], [150]],
            "164 answered: one write per 50, without the timer")
    }

    @Test(
        "a notification not yet answered or whose record is not yet acknowledged is left out; the ones after it are recorded"
    )
    func stragglersDoNotHoldTheRestBack() throws {
        let harness = try Self.harness()
        harness.consume([CoreHarness.campaign("c1", tokens: 0..<200)])
        // Token 5 is rejected: its feedback event waits for Kafka's acknowledgement. Token 7 is
        // answered 503: it waits for its retry.
        let unregistered = APNsOutcome.rejected(
            APNsResponse(status: 410, reason: .unregistered, timestampMilliseconds: 1))
        harness.answer {
            switch $0.token.hex {
            case Fixtures.tokenHex(5): unregistered
            case Fixtures.tokenHex(7): ScriptedPool.serviceUnavailable
            default: ScriptedPool.accepted
            }
        }
        harness.advance(by: .milliseconds(150))
        #expect(Self.done(in: harness.published) == [[0..<5, 6..<7, 8..<20]])
        harness.acknowledgeRecords()
        harness.answer { _ in ScriptedPool.accepted }
        harness.advance(by: .milliseconds(100))
        #expect(
            Self.done(in: harness.acknowledgeRecords()).last == [0..<7, 8..<39],
            "the retry of token 7 waits, holding a place in the window")
    }

    @Test("a job read again with its checkpoint sends only what the checkpoint does not record done, and completes")
    func resumesFromCheckpoint() throws {
        let saved = JobCheckpoint(offset: 0, jobID: "c1", done: [0..<100, 150..<180])
        let harness = try Self.harness(streams: 100, known: [Self.partition(jobs: [saved])])
        harness.consume([CoreHarness.campaign("c1", tokens: 0..<200)])
        let sent = harness.pool.unanswered.map(\.request.token.hex)
        let expected = Array(100..<150) + Array(180..<200)
        #expect(sent == expected.map(Fixtures.tokenHex), "the 70 not done, in order")
        harness.answer { _ in ScriptedPool.accepted }
        harness.acknowledgeRecords()
        #expect(harness.committed.map(\.offset) == [0], "the job completes with the 70 left")
        #expect(harness.statistics.resumedFromCheckpoint == 130)
    }

    @Test("a checkpoint of another job at the same offset, or of another offset, is ignored")
    func foreignCheckpointIsIgnored() throws {
        let otherJob = JobCheckpoint(offset: 0, jobID: "recreated-topic", done: [0..<150])
        let elsewhere = JobCheckpoint(offset: 9, jobID: "c1", done: [0..<150])
        let harness = try Self.harness(known: [Self.partition(jobs: [otherJob, elsewhere])])
        harness.consume([CoreHarness.campaign("c1", tokens: 0..<200)])
        #expect(harness.pool.unanswered.first?.request.token.hex == Fixtures.tokenHex(0))
        #expect(harness.statistics.resumedFromCheckpoint == 0)
    }

    @Test(
        "records a checkpoint names complete are completed without sending; open ones, newer ones and ones without a timestamp are sent"
    )
    func completeRecordsAreSkipped() throws {
        let offsets = PartitionCheckpoint.Offsets(from: 0, to: 3, open: [1])
        let harness = try Self.harness(
            streams: 100, known: [Self.partition(offsets, written: 1_000)], newestWrite: 1_000)
        let jobs = (0..<4).map { CoreHarness.campaign("j\($0)", tokens: $0 * 10..<$0 * 10 + 2) }
        harness.consume(Array(jobs[0..<3]), timestampMilliseconds: 900)
        harness.consume([jobs[3]], timestampMilliseconds: 2_000)
        let sent = Set(harness.pool.unanswered.map(\.request.token.hex))
        #expect(sent == Set([10, 11, 30, 31].map(Fixtures.tokenHex)), "offsets 0 and 2 are complete")
        #expect(harness.committed.map(\.offset).sorted() == [0, 2])
        #expect(harness.statistics.skippedByCheckpoint == 2)

        let untimed = try Self.harness(
            streams: 100, known: [Self.partition(offsets, written: 1_000)], newestWrite: 1_000)
        untimed.consume([jobs[0]])
        #expect(untimed.pool.unanswered.count == 2, "no timestamp: never taken as complete")
    }

    @Test("a job stops at kafka.max_unconfirmed_sends until a checkpoint naming more of it done is acknowledged")
    func unconfirmedSendsAreBounded() throws {
        let harness = try Self.harness(
            streams: 100,
            configure: {
                $0.maximumUnconfirmedSends = 30
                $0.checkpointNotifications = 10
            })
        harness.consume([CoreHarness.campaign("c1", tokens: 0..<200)])
        #expect(harness.pool.unanswered.count == 30, "the bound, not the window of 164")
        harness.answer { _ in ScriptedPool.accepted }
        #expect(harness.pool.unanswered.isEmpty, "answered, but the checkpoint is not acknowledged")
        #expect(Self.done(in: harness.published).last == [0..<30], "written as the answers came")
        #expect(harness.statistics.checkpointWaits == 1)
        harness.acknowledgeRecords()
        #expect(harness.pool.unanswered.count == 30, "acknowledged: 30 more")
        harness.acknowledgeRecords { _ in .failure(KafkaError(code: .timedOut, message: "lost")) }
        harness.answer { _ in ScriptedPool.accepted }
        #expect(harness.pool.unanswered.isEmpty)
        harness.acknowledgeRecords { _ in .failure(KafkaError(code: .timedOut, message: "lost")) }
        #expect(harness.pool.unanswered.isEmpty, "a refused checkpoint confirms nothing")
        harness.advance(by: .milliseconds(100))
        harness.acknowledgeRecords()
        #expect(harness.pool.unanswered.count == 30, "the next interval's checkpoint confirms them")
    }

    @Test("a per-user push (one token) keeps no checkpoint and never waits for one")
    func singleTokenJobsAreNotBounded() throws {
        let harness = try Self.harness(streams: 100, configure: { $0.maximumUnconfirmedSends = 5 })
        let pushes = (0..<20).map { CoreHarness.campaign("u\($0)", tokens: $0..<$0 + 1) }
        harness.consume(pushes, topic: CoreHarness.topics.priority)
        #expect(harness.pool.unanswered.count == 20)
        harness.answer { _ in ScriptedPool.accepted }
        harness.advance(by: .milliseconds(150))
        #expect(Self.checkpoints(in: harness.published).isEmpty)
    }

    @Test("the checkpoint record: version 2 JSON keyed by group, topic and partition; version 1 is still read")
    func recordFormat() throws {
        let checkpoint = PartitionCheckpoint(
            topic: "salvo.jobs", partition: 3, offsets: .init(from: 40, to: 45, open: [42, 44]),
            jobs: [JobCheckpoint(offset: 42, jobID: "spring-1", done: [0..<7, 9..<12])], writtenAtMilliseconds: 1_234)
        let record = checkpoint.record(group: "g")
        #expect(String(decoding: record.key ?? [], as: UTF8.self) == "g|salvo.jobs|3")
        #expect(
            String(decoding: record.value, as: UTF8.self)
                == #"{"version":2,"topic":"salvo.jobs","partition":3,"written_at_ms":1234,"from":40,"to":45,"open":[42,44],"jobs":[{"offset":42,"job_id":"spring-1","done":[[0,7],[9,12]]}]}"#
        )
        #expect(PartitionCheckpoint.decode(key: record.key, value: record.value, group: "g") == checkpoint)
        #expect(PartitionCheckpoint.decode(key: record.key, value: record.value, group: "other") == nil)
        #expect(PartitionCheckpoint.decode(key: record.key, value: nil, group: "g") == nil, "a tombstone")
        #expect(PartitionCheckpoint.decode(key: record.key, value: Array("{}".utf8), group: "g") == nil)
        let misfiled = PartitionCheckpoint(topic: "salvo.jobs", partition: 4, writtenAtMilliseconds: 1).record(
            group: "g")
        #expect(
            PartitionCheckpoint.decode(key: record.key, value: misfiled.value, group: "g") == nil,
            "a value filed under another partition's key")
        let overlapping =
            #"{"version":2,"topic":"salvo.jobs","partition":3,"written_at_ms":1,"jobs":[{"offset":1,"job_id":"x","done":[[0,5],[4,6]]}]}"#
        #expect(PartitionCheckpoint.decode(key: record.key, value: Array(overlapping.utf8), group: "g") == nil)

        let version1 = #"{"version":1,"topic":"salvo.jobs","partition":3,"offset":42,"job_id":"spring-1","done":7}"#
        let read = PartitionCheckpoint.decode(key: record.key, value: Array(version1.utf8), group: "g")
        #expect(read?.jobs == [JobCheckpoint(offset: 42, jobID: "spring-1", done: [0..<7])])
        #expect(read?.offsets == nil, "version 1 records no offsets")

        #expect(checkpoint.completes(40, timestampMilliseconds: 1_000))
        #expect(!checkpoint.completes(42, timestampMilliseconds: 1_000), "open")
        #expect(!checkpoint.completes(45, timestampMilliseconds: 1_000), "past `to`")
        #expect(!checkpoint.completes(41, timestampMilliseconds: 2_000), "produced after the checkpoint was written")
        #expect(!checkpoint.completes(41, timestampMilliseconds: nil))
    }
}
