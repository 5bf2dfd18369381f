import Foundation
import Logging
import SalvoKafka
import SalvoTestSupport
import Synchronization

/// The test broker started by scripts/with-broker.sh, and the topics a test made there.
/// Missing configuration fails the test: these tests must never be skipped silently.
final class CLITestCluster: Sendable {
    let brokers: String
    let admin: KafkaAdmin
    private let topics = Mutex<[String]>([])

    init() throws {
        guard let brokers = ProcessInfo.processInfo.environment["SALVO_TEST_BROKERS"], !brokers.isEmpty else {
            throw TestFailure(
                "SALVO_TEST_BROKERS is not set: run the CLI tests through `make test` or "
                    + "`scripts/with-broker.sh swift test --skip-build --filter SalvoCLITests`"
            )
        }
        self.brokers = brokers
        var logger = Logger(label: "salvo.cli.test")
        logger.logLevel = .critical
        admin = try KafkaAdmin(configuration: KafkaClientConfiguration(bootstrapServers: brokers), logger: logger)
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
        try? await admin.deleteTopics(names)
        await admin.close()
    }

    /// All messages of a topic as kcat prints them with `format`, reading to the end.
    func read(_ topic: String, format: String) async throws -> ExternalProcess.Result {
        try await CommandRunner.kcat(["-b", brokers, "-C", "-t", topic, "-e", "-q", "-f", format])
    }
}

/// Runs `body` with the test broker and always deletes the topics it made.
func withCLITestCluster(_ body: (CLITestCluster) async throws -> Void) async throws {
    try await withCleanUp(try CLITestCluster(), cleanUp: { await $0.cleanUp() }, body)
}
