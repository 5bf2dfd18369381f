import Foundation
import SalvoKafka
import SalvoTestSupport
import Testing

/// The worker refuses to start without the state topics its configuration names — job
/// checkpoints (`topics.progress`) and campaign control (`topics.control`) — or with one that is
/// not compacted, unless the feature is switched off by name (`null`).
@Suite("salvo worker state topics", .serialized)
struct WorkerStateTopicTests {
    /// Starts a worker on `configuration` and expects exit 78 with one line holding `parts`.
    static func expectRefusal(
        _ stage: WorkerStage, _ configuration: URL, name: String, naming parts: [String]
    ) async throws {
        let worker = try stage.startWorker(configuration, name: name)
        let status = await worker.waitForExit(timeout: .seconds(60))
        #expect(status == 78, "exit \(status.map(String.init) ?? "none"); stderr: \(worker.stderr.suffix(2_000))")
        let lines = worker.stderr.split(separator: "\n").filter { line in parts.allSatisfy { line.contains($0) } }
        #expect(lines.count == 1, "one line naming \(parts): \(worker.stderr.suffix(2_000))")
        #expect(try stage.record().acceptedCount.isEmpty)
    }

    @Test(
        "a missing progress or control topic stops the start, naming the topic and its key",
        arguments: ["progress", "control"])
    func missingStateTopic(role: String) async throws {
        try await withWorkerStage(scenarioYAML: WorkerAcceptanceTests.deadTokenScenario) { stage in
            let missing = stage.cluster.uniqueName("absent-\(role)")
            let configuration = try stage.writeWorkerConfiguration(topics: [role: missing])
            try await Self.expectRefusal(
                stage, configuration, name: "no-\(role)", naming: [missing, "topics.\(role)", "does not exist"])
        }
    }

    @Test("a progress topic that deletes by age stops the start, naming its cleanup.policy")
    func uncompactedProgress() async throws {
        try await withWorkerStage(scenarioYAML: WorkerAcceptanceTests.deadTokenScenario) { stage in
            let name = stage.cluster.uniqueName("deleting-progress")
            stage.cluster.adopt([name])
            _ = try await stage.cluster.admin.createTopics([
                KafkaNewTopic(name: name, partitions: 1, configs: ["cleanup.policy": "delete"])
            ])
            let configuration = try stage.writeWorkerConfiguration(topics: ["progress": name])
            try await Self.expectRefusal(
                stage, configuration, name: "deleting-progress",
                naming: [name, "topics.progress", "cleanup.policy=delete"])
        }
    }

    @Test("topics.progress: null and topics.control: null start without them, say so, and send")
    func switchedOff() async throws {
        try await withWorkerStage(scenarioYAML: WorkerAcceptanceTests.deadTokenScenario) { stage in
            var fixture = CampaignFixture(seed: 61)
            fixture.addPerUser(id: "off", count: 20, app: WorkerStage.app, fate: WorkerAcceptanceTests.deadTokens)
            try await stage.enqueue(fixture.perUserLines, to: stage.priorityTopic)
            let configuration = try stage.writeWorkerConfiguration(topics: ["progress": "null", "control": "null"])
            let worker = try stage.startWorker(configuration)
            let record = try await stage.waitForDeliveries(of: fixture.expected.delivered, timeout: .seconds(90))
            #expect(fixture.expected.delivered.allSatisfy { record.acceptedCount[$0] != nil })
            let log = worker.stdout + worker.stderr
            #expect(log.contains("job checkpoints off (topics.progress: null)"), "\(log.suffix(2_000))")
            #expect(log.contains("campaign control off (topics.control: null)"), "\(log.suffix(2_000))")
            worker.signal(SIGTERM)
            #expect(await worker.waitForExit(timeout: .seconds(40)) == 0)
        }
    }
}
