import Foundation
import Logging
import SalvoKafka
import SalvoTestSupport
import Synchronization

/// The test broker started by scripts/with-broker.sh (or a broker that requires authentication,
/// ``init(secured:properties:secrets:directory:)``), and the topics a test made there.
/// Missing configuration fails the test: these tests must never be skipped silently.
final class CLITestCluster: Sendable {
    let brokers: String
    let admin: KafkaAdmin
    /// The librdkafka properties every client of this cluster needs (TLS, SASL), secrets included:
    /// for the test's own clients and kcat, never for a `salvo` argument.
    let properties: [String: String]
    /// What `salvo` commands are given to reach the cluster: `--brokers`, or `--kafka-config` with
    /// a file whose secrets are in files of their own (`properties_files`).
    let connectionArguments: [String]
    /// The lines a worker configuration's `kafka:` block adds for this cluster (two-space indent).
    let workerKafkaLines: [String]
    /// librdkafka's mock cluster in this process, when the test runs on it instead of the test
    /// broker (``init(embedded:)``): topics are made through it, and it injects faults.
    let embedded: KafkaEmbeddedCluster?
    private let topics = Mutex<[String]>([])

    init() throws {
        guard let brokers = ProcessInfo.processInfo.environment["SALVO_TEST_BROKERS"], !brokers.isEmpty else {
            throw TestFailure(
                "SALVO_TEST_BROKERS is not set: run the CLI tests through `make test` or "
                    + "`scripts/with-broker.sh swift test --skip-build --filter SalvoCLITests`"
            )
        }
        self.brokers = brokers
        properties = [:]
        connectionArguments = ["--brokers", brokers]
        workerKafkaLines = []
        embedded = nil
        admin = try KafkaAdmin(configuration: KafkaClientConfiguration(bootstrapServers: brokers), logger: Self.logger)
    }

    /// librdkafka's mock cluster, started in this process: the workers the test starts connect
    /// to its listeners on 127.0.0.1 like to any broker. Unlike Tansu it runs every assignor
    /// (`cooperative-sticky` included) and injects request errors.
    init(embedded: KafkaEmbeddedCluster) throws {
        self.embedded = embedded
        brokers = embedded.bootstrapServers
        properties = [:]
        connectionArguments = ["--brokers", brokers]
        workerKafkaLines = []
        admin = try KafkaAdmin(configuration: KafkaClientConfiguration(bootstrapServers: brokers), logger: Self.logger)
    }

    /// A cluster behind `broker`'s address. `properties` are the non-secret client settings and
    /// `secrets` the secret ones, which go to files in `directory` named by `properties_files`.
    init(secured broker: String, properties: [String: String], secrets: [String: String], directory: URL) throws {
        let all = properties.merging(secrets) { $1 }
        brokers = broker
        embedded = nil
        self.properties = all
        var fileLines: [String] = []
        for (name, value) in secrets.sorted(by: { $0.key < $1.key }) {
            let file = directory.appendingPathComponent("kafka-secret-\(name)")
            try value.write(to: file, atomically: true, encoding: .utf8)
            fileLines.append("    \(name): \(file.path)")
        }
        let propertyLines = properties.sorted { $0.key < $1.key }.map { "    \($0.key): \"\($0.value)\"" }
        workerKafkaLines =
            ["properties:"] + propertyLines + (fileLines.isEmpty ? [] : ["properties_files:"] + fileLines)
        let kafkaConfig = directory.appendingPathComponent("kafka.yaml")
        try (["kafka:", "  brokers: [\"\(broker)\"]"] + workerKafkaLines.map { "  \($0)" }).joined(separator: "\n")
            .write(to: kafkaConfig, atomically: true, encoding: .utf8)
        connectionArguments = ["--kafka-config", kafkaConfig.path]
        admin = try KafkaAdmin(
            configuration: KafkaClientConfiguration(bootstrapServers: broker, properties: all), logger: Self.logger)
    }

    private static var logger: Logger {
        var logger = Logger(label: "salvo.cli.test")
        logger.logLevel = .critical
        return logger
    }

    /// The test's own client settings for this cluster.
    var clientConfiguration: KafkaClientConfiguration {
        KafkaClientConfiguration(bootstrapServers: brokers, properties: properties)
    }

    /// A name no other test uses; it is deleted by `cleanUp` whether or not it was created.
    func uniqueName(_ prefix: String) -> String {
        let name = "\(prefix)-\(UInt32.random(in: 0...UInt32.max))"
        topics.withLock { $0.append(name) }
        return name
    }

    /// Registers topics a command created, for deletion.
    func adopt(_ names: [String]) {
        topics.withLock { $0.append(contentsOf: names) }
    }

    func cleanUp() async {
        let names = topics.withLock { $0 }
        if let embedded {
            await admin.close()
            await embedded.shutdown()
            return
        }
        try? await admin.deleteTopics(names)
        await admin.close()
    }

    /// All messages of a topic as kcat prints them with `format`, reading to the end.
    func read(_ topic: String, format: String) async throws -> ExternalProcess.Result {
        let settings = properties.sorted { $0.key < $1.key }.flatMap { ["-X", "\($0.key)=\($0.value)"] }
        return try await CommandRunner.kcat(
            ["-b", brokers] + settings + ["-C", "-t", topic, "-e", "-q", "-f", format])
    }
}

/// Runs `body` with the test broker and always deletes the topics it made.
func withCLITestCluster(_ body: (CLITestCluster) async throws -> Void) async throws {
    try await withCleanUp(try CLITestCluster(), cleanUp: { await $0.cleanUp() }, body)
}

/// Runs `body` with librdkafka's mock cluster in this process, and always stops it.
func withEmbeddedTestCluster(_ body: (CLITestCluster) async throws -> Void) async throws {
    var logger = Logger(label: "salvo.cli.test.embedded")
    logger.logLevel = .critical
    let embedded = try KafkaEmbeddedCluster(logger: logger)
    try await withCleanUp(try CLITestCluster(embedded: embedded), cleanUp: { await $0.cleanUp() }, body)
}
