import SalvoAPNs
import SalvoKafka
import Synchronization
import Testing

@testable import SalvoWorker

/// The checkpoint rules as timelines: what a checkpoint records (the done prefix of the
/// partition's lowest open job, records acknowledged), and how a job read again resumes from it.
@Suite("WorkerCore: job checkpoints")
struct WorkerCoreCheckpointTests {
    static let group = "salvo-worker"

    /// A harness that writes checkpoints to `salvo.progress` and reads them from `known`.
    static func harness(streams: Int = 10, known: [JobCheckpoint] = []) throws -> CoreHarness {
        let table = Dictionary(uniqueKeysWithValues: known.map { ($0.partitionKey, $0) })
        let access = CheckpointAccess(lookup: { table[$0] }, topic: "salvo.progress", group: { _ in group })
        let harness = try CoreHarness(streams: streams, checkpoints: access)
        harness.core.start()
        return harness
    }

    static func checkpoints(in records: [PendingRecord]) -> [JobCheckpoint] {
        records.filter { $0.kind == .progress }.compactMap {
            JobCheckpoint.decode(key: $0.record.key, value: $0.record.value, group: group)
        }
    }

    @Test("the done prefix of a partly sent job is written once per checkpoint interval, and only when it moved")
    func prefixIsWritten() throws {
        let harness = try Self.harness()
        harness.consume([CoreHarness.campaign("c1", tokens: 0..<200)])
        harness.answer { _ in ScriptedPool.accepted }
        harness.answer { _ in ScriptedPool.accepted }
        harness.advance(by: .milliseconds(300))
        var written = Self.checkpoints(in: harness.acknowledgeRecords())
        #expect(
            written == [JobCheckpoint(topic: CoreHarness.topics.jobs, partition: 0, offset: 0, jobID: "c1", done: 40)])
        harness.advance(by: .milliseconds(300))
        #expect(Self.checkpoints(in: harness.acknowledgeRecords()).isEmpty, "nothing moved: nothing written")
        harness.answer { _ in ScriptedPool.accepted }
        harness.advance(by: .milliseconds(300))
        written = Self.checkpoints(in: harness.acknowledgeRecords())
        #expect(written.map(\.done) == [60])
    }

    @Test(
        "checkpoints are due every checkpoint interval (100 ms by default) from the last due time, not from the tick that wrote"
    )
    func checkpointCadence() throws {
        let harness = try Self.harness()
        harness.consume([CoreHarness.campaign("c1", tokens: 0..<200)])
        harness.answer { _ in ScriptedPool.accepted }
        #expect(Self.done(after: .milliseconds(50), in: harness).isEmpty, "not due before 100 ms")
        #expect(Self.done(after: .milliseconds(50), in: harness) == [20])
        for expected in [40, 60, 80] {
            harness.answer { _ in ScriptedPool.accepted }
            #expect(Self.done(after: .milliseconds(100), in: harness) == [expected])
        }

        // 120 ms against 50 ms ticks: due at 120 (written at the 150 ms tick), then at 240 (the
        // 250 ms tick). Counting from the writing tick would make the second due at 270.
        let offset = try CoreHarness(
            streams: 10, checkpoints: harness.core.checkpoints,
            configure: { $0.checkpointInterval = .milliseconds(120) })
        offset.core.start()
        offset.consume([CoreHarness.campaign("c1", tokens: 0..<200)])
        offset.answer { _ in ScriptedPool.accepted }
        #expect(Self.done(after: .milliseconds(100), in: offset).isEmpty, "a 120 ms interval: nothing at 100 ms")
        #expect(Self.done(after: .milliseconds(50), in: offset) == [20])
        offset.answer { _ in ScriptedPool.accepted }
        #expect(Self.done(after: .milliseconds(100), in: offset) == [40], "written at 250 ms")
    }

    /// Moves `harness` on by `duration` and returns the done prefixes of the checkpoints written
    /// meanwhile (acknowledging every record).
    static func done(after duration: Duration, in harness: CoreHarness) -> [Int] {
        harness.advance(by: duration)
        return checkpoints(in: harness.acknowledgeRecords()).map(\.done)
    }

    @Test("the prefix stops at a notification not yet answered and at one whose record is not yet acknowledged")
    func prefixWaitsForAnswersAndRecords() throws {
        let harness = try Self.harness()
        harness.consume([CoreHarness.campaign("c1", tokens: 0..<200)])
        // Token 5 is rejected: its feedback event waits for Kafka's acknowledgement.
        let unregistered = APNsOutcome.rejected(
            APNsResponse(status: 410, reason: .unregistered, timestampMilliseconds: 1))
        harness.answer { $0.token.hex == Fixtures.tokenHex(5) ? unregistered : ScriptedPool.accepted }
        harness.advance(by: .milliseconds(300))
        var written = Self.checkpoints(in: harness.published)
        #expect(written.map(\.done) == [5], "token 5's feedback event is not acknowledged yet")
        harness.acknowledgeRecords()
        harness.advance(by: .milliseconds(300))
        written = Self.checkpoints(in: harness.acknowledgeRecords())
        #expect(written.map(\.done) == [20], "acknowledged: the prefix reaches the window's end")
    }

    @Test("a job read again with its checkpoint starts after the done prefix and completes with the rest")
    func resumesFromCheckpoint() throws {
        let checkpoint = JobCheckpoint(topic: CoreHarness.topics.jobs, partition: 0, offset: 0, jobID: "c1", done: 150)
        let harness = try Self.harness(known: [checkpoint])
        harness.consume([CoreHarness.campaign("c1", tokens: 0..<200)])
        let first = harness.pool.unanswered.map(\.request.token.hex)
        #expect(first.first == Fixtures.tokenHex(150), "the first send is the first token after the prefix")
        #expect(!first.contains(Fixtures.tokenHex(149)))
        var sent = 0
        for _ in 0..<5 { sent += harness.answer { _ in ScriptedPool.accepted } }
        #expect(sent == 50)
        #expect(harness.committed.map(\.offset) == [0], "the job completes with the 50 left")
        #expect(harness.statistics.resumedFromCheckpoint == 150)
    }

    @Test("a checkpoint of another job at the same offset, or of another offset, is ignored")
    func foreignCheckpointIsIgnored() throws {
        let otherJob = JobCheckpoint(
            topic: CoreHarness.topics.jobs, partition: 0, offset: 0, jobID: "recreated-topic", done: 150)
        let harness = try Self.harness(known: [otherJob])
        harness.consume([CoreHarness.campaign("c1", tokens: 0..<200)])
        #expect(harness.pool.unanswered.first?.request.token.hex == Fixtures.tokenHex(0))
        #expect(harness.statistics.resumedFromCheckpoint == 0)
    }

    @Test(
        "the checkpoint record: versioned JSON keyed by group, topic and partition; other groups' and malformed records are skipped"
    )
    func recordFormat() throws {
        let checkpoint = JobCheckpoint(topic: "salvo.jobs", partition: 3, offset: 42, jobID: "spring-1", done: 7)
        let record = checkpoint.record(group: "g")
        #expect(String(decoding: record.key ?? [], as: UTF8.self) == "g|salvo.jobs|3")
        #expect(
            String(decoding: record.value, as: UTF8.self)
                == #"{"version":1,"topic":"salvo.jobs","partition":3,"offset":42,"job_id":"spring-1","done":7}"#)
        #expect(JobCheckpoint.decode(key: record.key, value: record.value, group: "g") == checkpoint)
        #expect(JobCheckpoint.decode(key: record.key, value: record.value, group: "other") == nil)
        #expect(JobCheckpoint.decode(key: record.key, value: nil, group: "g") == nil, "a tombstone")
        #expect(JobCheckpoint.decode(key: record.key, value: Array("{}".utf8), group: "g") == nil)
        let misfiled = JobCheckpoint(topic: "salvo.jobs", partition: 4, offset: 42, jobID: "x", done: 7).record(
            group: "g"
        ).value
        #expect(
            JobCheckpoint.decode(key: record.key, value: misfiled, group: "g") == nil,
            "a value filed under another partition's key")
    }
}
