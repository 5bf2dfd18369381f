import Foundation
import Logging
import SalvoKafka
import SalvoTestSupport
import Testing

/// Where a lane starts when its group has no committed offset (`kafka.start_from`), and the guard
/// that keeps a new or mistyped group from re-sending an old backlog. Old records are produced
/// with a create time in the past; each record in a batch of its own, because Tansu answers
/// "latest" with the last batch's base offset + 1.
@Suite("salvo worker start position of new groups", .serialized)
struct WorkerStartFromTests {
    static let fate = WorkerAcceptanceTests.deadTokens
    static let scenario = WorkerAcceptanceTests.deadTokenScenario

    /// Per-user jobs whose records were created `age` ago.
    static func jobs(
        _ fixture: inout CampaignFixture, id: String, count: Int
    ) -> (lines: [String], delivered: Set<String>) {
        let before = fixture.expected.delivered
        let start = fixture.perUserLines.count
        fixture.addPerUser(id: id, count: count, app: WorkerStage.app, fate: fate)
        return (Array(fixture.perUserLines[start...]), fixture.expected.delivered.subtracting(before))
    }

    static func produce(_ lines: [String], to topic: String, age: Duration, on stage: WorkerStage) async throws {
        var logger = Logger(label: "salvo.e2e.produce")
        logger.logLevel = .critical
        let producer = try KafkaProducer(
            configuration: KafkaProducerConfiguration(
                client: KafkaClientConfiguration(bootstrapServers: stage.cluster.brokers)),
            logger: logger)
        let created = Int64((Date().timeIntervalSince1970 * 1_000).rounded()) - Int64(age.components.seconds) * 1_000
        for line in lines {
            _ = try await producer.send(
                KafkaProducerMessage(topic: topic, value: Array(line.utf8), timestampMilliseconds: created))
        }
        await producer.shutdown(timeout: .seconds(5))
    }

    /// Waits until the worker logged where the per-user group starts.
    static func waitForStart(of worker: BackgroundProcess, stage: WorkerStage) async throws {
        let group = "\(stage.groupID).priority"
        let logged = try await waitUntil(timeout: .seconds(60)) {
            (worker.stdout + worker.stderr).split(separator: "\n").contains {
                $0.contains("without a committed offset start") && $0.contains(group)
            }
        }
        #expect(logged, "no start line for \(group): \(worker.stderr.suffix(2_000))")
    }

    @Test(
        "a group with no commits facing records older than 1 h refuses to start (exit 78) and sends nothing until kafka.start_from says where"
    )
    func newGroupWithOldBacklogWaitsUntilTold() async throws {
        try await withWorkerStage(scenarioYAML: Self.scenario) { stage in
            var fixture = CampaignFixture(seed: 51)
            let old = Self.jobs(&fixture, id: "old", count: 20)
            try await Self.produce(old.lines, to: stage.priorityTopic, age: .seconds(3 * 3_600), on: stage)

            let refused = try stage.startWorker(try stage.writeWorkerConfiguration(), name: "refused")
            let status = await refused.waitForExit(timeout: .seconds(60))
            #expect(status == 78, "stderr: \(refused.stderr.suffix(2_000))")
            let lines = refused.stderr.split(separator: "\n").filter { $0.contains("has no committed offsets") }
            #expect(lines.count == 1, "one line: \(refused.stderr.suffix(2_000))")
            let line = lines.first ?? ""
            for part in [
                "group \(stage.groupID).priority", stage.priorityTopic, "20 records", "3h", "kafka.start_from",
            ] {
                #expect(line.contains(part), "\(part) in: \(line)")
            }
            #expect(try stage.record().acceptedCount.isEmpty, "nothing sent before being told")

            let told = try stage.startWorker(
                try stage.writeWorkerConfiguration(name: "earliest.yaml", kafka: ["start_from: earliest"]), name: "told"
            )
            let record = try await stage.waitForDeliveries(of: old.delivered, timeout: .seconds(90))
            #expect(
                old.delivered.allSatisfy { record.acceptedCount[$0] != nil }, "start_from: earliest sends the backlog")
            told.signal(SIGTERM)
            #expect(await told.waitForExit(timeout: .seconds(40)) == 0)
        }
    }

    @Test("start_from: latest skips the backlog and sends what arrives after the start")
    func latestSkipsTheBacklog() async throws {
        try await withWorkerStage(scenarioYAML: Self.scenario) { stage in
            var fixture = CampaignFixture(seed: 52)
            let old = Self.jobs(&fixture, id: "old", count: 10)
            try await Self.produce(old.lines, to: stage.priorityTopic, age: .seconds(3 * 3_600), on: stage)
            let worker = try stage.startWorker(
                try stage.writeWorkerConfiguration(logLevel: "info", kafka: ["start_from: latest"]))
            try await Self.waitForStart(of: worker, stage: stage)
            let new = Self.jobs(&fixture, id: "new", count: 10)
            try await Self.produce(new.lines, to: stage.priorityTopic, age: .zero, on: stage)
            try await Self.expect(worker, on: stage, toSend: new.delivered, andSkip: old.delivered)
        }
    }

    @Test("start_from: 1h skips records older than an hour and sends the newer ones")
    func ageSkipsOlderRecords() async throws {
        try await withWorkerStage(scenarioYAML: Self.scenario) { stage in
            var fixture = CampaignFixture(seed: 53)
            let old = Self.jobs(&fixture, id: "old", count: 10)
            let recent = Self.jobs(&fixture, id: "recent", count: 10)
            try await Self.produce(old.lines, to: stage.priorityTopic, age: .seconds(2 * 3_600), on: stage)
            try await Self.produce(recent.lines, to: stage.priorityTopic, age: .seconds(600), on: stage)
            let worker = try stage.startWorker(try stage.writeWorkerConfiguration(kafka: ["start_from: 1h"]))
            try await Self.expect(worker, on: stage, toSend: recent.delivered, andSkip: old.delivered)
        }
    }

    @Test("a group with commits resumes from them, however old the records behind them")
    func committedGroupResumes() async throws {
        try await withWorkerStage(scenarioYAML: Self.scenario) { stage in
            var fixture = CampaignFixture(seed: 54)
            let first = Self.jobs(&fixture, id: "first", count: 10)
            try await Self.produce(first.lines, to: stage.priorityTopic, age: .zero, on: stage)
            let worker = try stage.startWorker(try stage.writeWorkerConfiguration(), name: "first")
            _ = try await stage.waitForDeliveries(of: first.delivered, timeout: .seconds(90))
            worker.signal(SIGTERM)
            #expect(await worker.waitForExit(timeout: .seconds(40)) == 0)

            // Older than the guard's bound, behind the group's commits: the default start neither
            // refuses nor skips them.
            let second = Self.jobs(&fixture, id: "second", count: 10)
            try await Self.produce(second.lines, to: stage.priorityTopic, age: .seconds(3 * 3_600), on: stage)
            let resumed = try stage.startWorker(try stage.writeWorkerConfiguration(), name: "resumed")
            let record = try await stage.waitForDeliveries(of: second.delivered, timeout: .seconds(90))
            #expect(second.delivered.allSatisfy { record.acceptedCount[$0] != nil }, "resumed from the commits")
            #expect(first.delivered.allSatisfy { record.acceptedCount[$0] == 1 }, "nothing before the commits again")
            resumed.signal(SIGTERM)
            #expect(await resumed.waitForExit(timeout: .seconds(40)) == 0)
        }
    }

    /// `worker` delivers every token of `sent`, then (2 s later) none of `skipped`, and drains.
    static func expect(
        _ worker: BackgroundProcess, on stage: WorkerStage, toSend sent: Set<String>, andSkip skipped: Set<String>
    ) async throws {
        let record = try await stage.waitForDeliveries(of: sent, timeout: .seconds(90))
        #expect(sent.allSatisfy { record.acceptedCount[$0] != nil }, "the records after the start position are sent")
        try await Task.sleep(for: .seconds(2))
        let later = try stage.record()
        #expect(skipped.allSatisfy { later.acceptedCount[$0] == nil }, "the records before it are skipped")
        worker.signal(SIGTERM)
        #expect(await worker.waitForExit(timeout: .seconds(40)) == 0)
    }
}
