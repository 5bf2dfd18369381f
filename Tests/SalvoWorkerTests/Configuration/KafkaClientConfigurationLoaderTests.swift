import Foundation
import SalvoKafka
import Testing

@testable import SalvoWorker

/// The commands' Kafka settings (`--kafka-config`, `SALVO_KAFKA_*`, `--brokers`) come through the
/// worker's own code for the `kafka:` block: same keys, same variables, same secret files.
@Suite("Kafka client configuration of the commands")
struct KafkaClientConfigurationLoaderTests {
    /// A temporary directory with `name` holding `text`; removed by the caller.
    private static func directory(_ files: [String: String]) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "salvo-kafka-\(UUID().uuidString)"
        )
        .path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for (name, text) in files { try text.write(toFile: "\(directory)/\(name)", atomically: true, encoding: .utf8) }
        return directory
    }

    private static let secured = """
        kafka:
          brokers: ["kafka-1:9093", "kafka-2:9093"]
          client_id: ops
          properties: {security.protocol: sasl_ssl, sasl.mechanisms: SCRAM-SHA-512, sasl.username: salvo}
          properties_files: {sasl.password: secrets/sasl-password}
        """

    @Test("a kafka-only file: brokers, client id, properties, and a secret read from its file (relative path)")
    func kafkaOnlyFile() throws {
        let directory = try Self.directory(["kafka.yaml": Self.secured])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: "\(directory)/secrets", withIntermediateDirectories: true)
        try "s3cret-value\n".write(toFile: "\(directory)/secrets/sasl-password", atomically: true, encoding: .utf8)
        let loaded = try KafkaClientConfigurationLoader(environment: [:]).load(path: "\(directory)/kafka.yaml")
        #expect(loaded.client.brokers == ["kafka-1:9093", "kafka-2:9093"])
        #expect(loaded.client.clientID == "ops")
        #expect(
            loaded.client.properties == [
                "security.protocol": "sasl_ssl", "sasl.mechanisms": "SCRAM-SHA-512", "sasl.username": "salvo",
                "sasl.password": "s3cret-value",
            ])
        #expect(!loaded.description.contains("s3cret-value"), "\(loaded.description)")
        #expect(loaded.description.contains("sasl.password=<redacted>"), "\(loaded.description)")
        #expect(loaded.description.contains("sasl.username=salvo"), "\(loaded.description)")
    }

    @Test("a missing secret file is one line naming the file, the key and the path, never a value")
    func missingSecretFile() throws {
        let directory = try Self.directory(["kafka.yaml": Self.secured])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let error = #expect(throws: SalvoWorkerError.self) {
            try KafkaClientConfigurationLoader(environment: [:]).load(path: "\(directory)/kafka.yaml")
        }
        let message = try #require(error?.message)
        #expect(
            message
                == "\(directory)/kafka.yaml: kafka.properties_files.sasl.password: cannot read \(directory)/secrets/sasl-password"
        )
        #expect(!message.contains("\n"))
    }

    @Test("a worker's whole file will do: its kafka block is read, the other sections are not")
    func workerFile() throws {
        let yaml = """
            kafka:
              brokers: kafka:9092
              commit_interval: 2s
            group_id: salvo-worker
            apps: {main: {bundle_id: com.example.app, credential: {token: {key_file: /nowhere.p8, team_id: T}}}}
            log_level: debug
            """
        let directory = try Self.directory(["worker.yaml": yaml])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let loaded = try KafkaClientConfigurationLoader(environment: [:]).load(
            path: "\(directory)/worker.yaml", defaultClientID: "salvo-enqueue")
        #expect(loaded.client.brokers == ["kafka:9092"])
        #expect(loaded.client.clientID == "salvo-enqueue")
    }

    @Test("a typo inside the kafka block fails as it does for the worker, naming the key")
    func unknownKafkaKey() throws {
        let directory = try Self.directory(["kafka.yaml": "kafka: {brokers: [a:1], propertes: {}}\n"])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let error = #expect(throws: SalvoWorkerError.self) {
            try KafkaClientConfigurationLoader(environment: [:]).load(path: "\(directory)/kafka.yaml")
        }
        #expect(error?.message.contains("kafka.propertes") == true, "\(error?.message ?? "")")
    }

    @Test("precedence: the file, then SALVO_KAFKA_*, then --brokers; a variable replaces a secret file")
    func precedence() throws {
        let directory = try Self.directory(["kafka.yaml": Self.secured])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let environment = [
            "SALVO_KAFKA_BROKERS": "env-1:9092,env-2:9092", "SALVO_KAFKA_CLIENT_ID": "from-env",
            "SALVO_KAFKA_PROPERTY_SASL_PASSWORD": "from-env-secret",
        ]
        let loader = KafkaClientConfigurationLoader(environment: environment)
        let fromEnvironment = try loader.load(path: "\(directory)/kafka.yaml")
        #expect(fromEnvironment.client.brokers == ["env-1:9092", "env-2:9092"])
        #expect(fromEnvironment.client.clientID == "from-env")
        #expect(fromEnvironment.client.properties["sasl.password"] == "from-env-secret")
        #expect(fromEnvironment.environmentOverrides.contains("SALVO_KAFKA_PROPERTY_SASL_PASSWORD"))
        #expect(!fromEnvironment.description.contains("from-env-secret"))

        let fromFlag = try loader.load(path: "\(directory)/kafka.yaml", brokers: "flag:9092")
        #expect(fromFlag.client.brokers == ["flag:9092"])
        #expect(fromFlag.description.contains("(--brokers)"))
    }

    @Test("without a file: the variables, or --brokers, alone; with neither, one line saying what to give")
    func withoutFile() throws {
        let onlyFlag = try KafkaClientConfigurationLoader(environment: [:]).load(
            path: nil, brokers: "127.0.0.1:9092", defaultClientID: "salvo-campaign")
        #expect(onlyFlag.client == KafkaClientConfiguration(brokers: ["127.0.0.1:9092"], clientID: "salvo-campaign"))
        let onlyEnvironment = try KafkaClientConfigurationLoader(
            environment: ["SALVO_KAFKA_BROKERS": "b:1", "SALVO_KAFKA_PROPERTY_SECURITY_PROTOCOL": "ssl"]
        ).load(path: nil)
        #expect(onlyEnvironment.client.brokers == ["b:1"])
        #expect(onlyEnvironment.client.properties == ["security.protocol": "ssl"])
        let error = #expect(throws: SalvoWorkerError.self) {
            try KafkaClientConfigurationLoader(environment: [:]).load(path: nil)
        }
        #expect(error?.message.contains("--kafka-config") == true)
    }

    @Test("a missing --kafka-config file names the file")
    func missingFile() {
        let error = #expect(throws: SalvoWorkerError.self) {
            try KafkaClientConfigurationLoader(environment: [:]).load(path: "/nonexistent/kafka.yaml")
        }
        #expect(error?.message == "/nonexistent/kafka.yaml: cannot read the configuration file")
    }

    @Test("a property both inline and in properties_files is refused")
    func propertyInBothPlaces() throws {
        let yaml = "kafka: {brokers: [a:1], properties: {sasl.password: x}, properties_files: {sasl.password: p}}\n"
        let directory = try Self.directory(["kafka.yaml": yaml, "p": "y"])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let error = #expect(throws: SalvoWorkerError.self) {
            try KafkaClientConfigurationLoader(environment: [:]).load(path: "\(directory)/kafka.yaml")
        }
        #expect(error?.message.contains("kafka.properties_files.sasl.password") == true, "\(error?.message ?? "")")
    }

    @Test("the worker reads properties_files through the same code")
    func workerReadsSecretFiles() throws {
        let fixture = try ConfigurationFixture()
        defer { fixture.remove() }
        try "worker-secret\n".write(toFile: "\(fixture.directory)/kafka-password", atomically: true, encoding: .utf8)
        let yaml = """
            kafka: {brokers: [a:1], properties_files: {sasl.password: kafka-password}}
            apps: {main: {bundle_id: com.example.app, credential: {token: {key_file: \(fixture.p8Path), team_id: \(ConfigurationFixture.teamID)}}}}
            """
        let loaded = try WorkerConfigurationLoader(environment: [:]).load(
            yaml: yaml, source: "worker.yaml", baseDirectory: fixture.directory)
        #expect(loaded.configuration.kafka.properties["sasl.password"] == "worker-secret")
        #expect(!loaded.description.contains("worker-secret"))
    }
}
