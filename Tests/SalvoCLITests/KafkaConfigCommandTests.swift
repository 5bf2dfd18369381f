import Foundation
import SalvoKafka
import SalvoTestSupport
import Testing

/// `--kafka-config` on the test broker: a kafka-only file or a worker's file configures every
/// command, `SALVO_KAFKA_*` win over the file and `--brokers` over both, librdkafka receives the
/// file's properties (secrets from files included), and no secret is printed.
@Suite(.serialized) struct KafkaConfigCommandTests {
    /// A scratch directory holding `files`.
    private func directory(_ files: [String: String]) throws -> URL {
        let directory = try ExternalProcess.temporaryDirectory()
        for (name, text) in files { try Data(text.utf8).write(to: directory.appendingPathComponent(name)) }
        return directory
    }

    private func compactedTopics(_ cluster: CLITestCluster) async throws -> (control: String, campaigns: String) {
        let control = cluster.uniqueName("cli-kafka-config-control")
        let campaigns = cluster.uniqueName("cli-kafka-config-campaigns")
        let created = try await cluster.admin.createTopics(
            [control, campaigns].map { KafkaNewTopic(name: $0, partitions: 1, configs: ["cleanup.policy": "compact"]) })
        #expect(created.allSatisfy { $0.outcome == .created }, "\(created)")
        return (control, campaigns)
    }

    @Test("a kafka-only file serves enqueue, campaign cancel and campaign status")
    func kafkaOnlyFile() async throws {
        try await withCLITestCluster { cluster in
            let files = try directory([
                "kafka.yaml": "kafka:\n  brokers: [\"\(cluster.brokers)\"]\n  client_id: cli-kafka-config\n",
                "jobs.ndjson": "{\"id\":\"a\"}\n{\"id\":\"b\"}\n",
            ])
            defer { try? FileManager.default.removeItem(at: files) }
            let config = files.appendingPathComponent("kafka.yaml").path
            let topic = cluster.uniqueName("cli-kafka-config")
            let enqueued = try await CommandRunner.salvo([
                "enqueue", "--kafka-config", config, "--topic", topic, "--create-topic", "--partitions", "1",
                files.appendingPathComponent("jobs.ndjson").path,
            ])
            #expect(enqueued.status == 0, "\(enqueued.stderr)")
            #expect(enqueued.stdoutText.contains("enqueued 2 message(s)"), "\(enqueued.stdoutText)")

            let topics = try await compactedTopics(cluster)
            let cancel = try await CommandRunner.salvo([
                "campaign", "cancel", "autumn", "--kafka-config", config, "--control-topic", topics.control,
                "--by", "cli-test",
            ])
            #expect(cancel.status == 0, "\(cancel.stderr)")
            let status = try await CommandRunner.salvo([
                "campaign", "status", "autumn", "--kafka-config", config, "--control-topic", topics.control,
                "--campaigns-topic", topics.campaigns, "--json",
            ])
            #expect(status.status == 0, "\(status.stderr)")
            #expect(status.stdoutText.contains("cancel"), "\(status.stdoutText)")
        }
    }

    @Test("a worker's configuration file is accepted as --kafka-config")
    func workerFile() async throws {
        try await withCLITestCluster { cluster in
            let yaml = """
                kafka:
                  brokers: ["\(cluster.brokers)"]
                  commit_interval: 250ms
                group_id: somewhere-else
                apps: {main: {bundle_id: com.example.app, credential: {token: {key_file: keys/none.p8, team_id: TEAM123456}}}}
                """
            let files = try directory(["worker.yaml": yaml])
            defer { try? FileManager.default.removeItem(at: files) }
            let topics = try await compactedTopics(cluster)
            let run = try await CommandRunner.salvo([
                "campaign", "status", "winter", "--kafka-config", files.appendingPathComponent("worker.yaml").path,
                "--control-topic", topics.control, "--campaigns-topic", topics.campaigns,
            ])
            #expect(run.status == 0, "\(run.stderr)")
        }
    }

    @Test("SALVO_KAFKA_BROKERS wins over the file, and --brokers over the variable")
    func precedence() async throws {
        try await withCLITestCluster { cluster in
            let closed = "127.0.0.1:\(try ClosedPort.find())"
            let files = try directory([
                "kafka.yaml": "kafka: {brokers: [\"\(closed)\"]}\n", "jobs.ndjson": "{\"id\":\"a\"}\n",
            ])
            defer { try? FileManager.default.removeItem(at: files) }
            let topic = cluster.uniqueName("cli-kafka-precedence")
            let created = try await cluster.admin.createTopics([KafkaNewTopic(name: topic, partitions: 1)])
            #expect(created.first?.outcome == .created)
            let input = files.appendingPathComponent("jobs.ndjson").path
            let config = files.appendingPathComponent("kafka.yaml").path
            let fromEnvironment = try await ExternalProcess.run(
                try ExternalProcess.salvoExecutable(), ["enqueue", "--kafka-config", config, "--topic", topic, input],
                environment: ["SALVO_KAFKA_BROKERS": cluster.brokers])
            #expect(fromEnvironment.status == 0, "the variable wins over the file: \(fromEnvironment.stderr)")
            let fromFlag = try await ExternalProcess.run(
                try ExternalProcess.salvoExecutable(),
                ["enqueue", "--kafka-config", config, "--brokers", cluster.brokers, "--topic", topic, input],
                environment: ["SALVO_KAFKA_BROKERS": closed])
            #expect(fromFlag.status == 0, "--brokers wins over the variable: \(fromFlag.stderr)")
            let read = try await cluster.read(topic, format: "%s\\n")
            #expect(read.stdoutText == "{\"id\":\"a\"}\n{\"id\":\"a\"}\n")
        }
    }

    @Test("the file's security properties and file-held secrets reach librdkafka, and no secret is printed")
    func propertiesReachLibrdkafka() async throws {
        let secret = "never-print-\(UInt32.random(in: 0...UInt32.max))"
        let files = try directory([
            "kafka.yaml": """
            kafka:
              brokers: [127.0.0.1:1]
              properties: {security.protocol: sasl_bogus, sasl.mechanisms: SCRAM-SHA-512, sasl.username: salvo}
              properties_files: {sasl.password: password}
            """,
            "password": secret + "\n", "jobs.ndjson": "{}\n",
        ])
        defer { try? FileManager.default.removeItem(at: files) }
        let config = files.appendingPathComponent("kafka.yaml").path
        for arguments in [
            ["enqueue", "--topic", "t", files.appendingPathComponent("jobs.ndjson").path], ["campaign", "status", "c"],
            ["campaign", "cancel", "c"],
        ] {
            let run = try await CommandRunner.salvo(arguments + ["--kafka-config", config, "--verbose"])
            #expect(run.status == 78, "\(arguments): librdkafka refuses the protocol: \(run.stderr)")
            #expect(run.stderr.contains("security.protocol"), "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains("sasl.password=<redacted>"), "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains("sasl.username=salvo"), "\(arguments): \(run.stderr)")
            #expect(!(run.stdoutText + run.stderr).contains(secret), "\(arguments) printed the secret")
        }
    }
}
