import Foundation
import Logging
import SalvoKafka
import SalvoTestSupport
import Synchronization
import Testing

/// Where an integration test runs: the real broker (Tansu, started by scripts/with-broker.sh)
/// or librdkafka's in-process mock cluster.
///
/// What Tansu 0.6 does not do, and how the tests work around it:
/// - `cooperative-sticky`: the second member never gets partitions (see KafkaConsumerGroupTests);
///   incremental rebalancing is tested on the embedded cluster only.
/// - ListOffsets "latest" answers the last batch's base offset + 1: after
///   `seq 1 10 | kcat -b $SALVO_TEST_BROKERS -P -t lo -X linger.ms=100` (one batch),
///   `kcat -b $SALVO_TEST_BROKERS -Q -t lo:0:-1` prints offset 1, not 10. Lag therefore uses the
///   high watermark cached from Fetch responses.
/// - Transactions, CreatePartitions and idempotent producing across a broker restart (memory
///   storage forgets producer ids): SalvoKafka does not use them, so nothing is tested there.
/// - The embedded cluster has no CreateTopics API and refuses offset commits while a group
///   rebalances; consumers then remember the uncommitted done watermark and start from it if the
///   partitions come back (see `KafkaConsumer.StateMachine.assigned`). It also answers a
///   follower's SyncGroup that arrives after the leader's with INVALID_REQUEST, and the follower
///   rejoins at once: a revoke in progress then has its commit refused (measured in about one
///   cooperative rebalance in five; see KafkaRevokeBarrierTests).
enum KafkaTestBackend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case embedded
    case tansu

    var testDescription: String { rawValue }
}

/// Failure of the test environment itself (no broker configured).
struct KafkaTestEnvironmentError: Error, CustomStringConvertible {
    var description: String
}

/// A cluster for one test, with the topics it created. `withKafkaTestCluster` deletes the
/// topics and stops an embedded cluster on every exit path.
final class KafkaTestCluster: Sendable {
    let backend: KafkaTestBackend
    let brokers: [String]
    private let embedded: KafkaEmbeddedCluster?
    private let admin: KafkaAdmin?
    private let created = TopicList()

    static let logger: Logger = {
        // Quiet by default (tests provoke connection failures on purpose); set
        // SALVO_TEST_LOG_LEVEL=debug to see librdkafka's logs.
        var logger = Logger(label: "salvo.kafka.test")
        let level = ProcessInfo.processInfo.environment["SALVO_TEST_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:))
        logger.logLevel = level ?? .critical
        return logger
    }()

    /// The real broker's address from the environment; missing means the tests were started
    /// the wrong way, which must fail loudly rather than skip.
    static func tansuBrokers() throws -> [String] {
        guard let brokers = ProcessInfo.processInfo.environment["SALVO_TEST_BROKERS"], !brokers.isEmpty else {
            let message =
                "SALVO_TEST_BROKERS is not set: run the Kafka tests through `make test` or "
                + "`scripts/with-broker.sh swift test --skip-build --filter SalvoKafkaTests`"
            throw KafkaTestEnvironmentError(description: message)
        }
        return brokers.split(separator: ",").map(String.init)
    }

    init(backend: KafkaTestBackend) throws {
        self.backend = backend
        switch backend {
        case .embedded:
            let cluster = try KafkaEmbeddedCluster(brokers: 1, logger: Self.logger)
            embedded = cluster
            brokers = cluster.brokers
            admin = nil
        case .tansu:
            brokers = try Self.tansuBrokers()
            embedded = nil
            admin = try KafkaAdmin(configuration: KafkaClientConfiguration(brokers: brokers), logger: Self.logger)
            print("librdkafka under test: \(RDKafkaLibrary.version), broker \(brokers.joined(separator: ","))")
        }
    }

    /// A unique topic with `partitions` partitions, deleted when the test ends.
    func makeTopic(partitions: Int, prefix: String = "salvo-test") async throws -> String {
        let name = "\(prefix)-\(UInt32.random(in: 0...UInt32.max))"
        created.append(name)
        if let embedded {
            try await embedded.createTopic(name, partitions: partitions)
        } else if let admin {
            let results = try await admin.createTopics([KafkaNewTopic(name: name, partitions: partitions)])
            #expect(results == [KafkaTopicCreationResult(name: name, outcome: .created)])
        }
        return name
    }

    func clientConfiguration() -> KafkaClientConfiguration {
        KafkaClientConfiguration(brokers: brokers, clientID: "salvo-test")
    }

    /// Consumer settings that make group joins quick on both backends.
    func consumerConfiguration(group: String, topics: [String]) -> KafkaConsumerConfiguration {
        var configuration = KafkaConsumerConfiguration(client: clientConfiguration(), groupID: group, topics: topics)
        configuration.sessionTimeout = .seconds(6)
        configuration.heartbeatInterval = .milliseconds(500)
        configuration.commitInterval = .milliseconds(200)
        configuration.closeTimeout = .seconds(10)
        return configuration
    }

    func cleanUp() async {
        if let admin {
            let names = created.all
            do {
                try await admin.deleteTopics(names)
            } catch {
                Issue.record("could not delete test topics \(names): \(error)")
            }
            await admin.close()
        }
        await embedded?.shutdown()
    }
}

/// Runs `body` with a cluster of the given backend and always cleans up.
func withKafkaTestCluster(
    _ backend: KafkaTestBackend,
    _ body: (KafkaTestCluster) async throws -> Void
) async throws {
    try await withCleanUp(try KafkaTestCluster(backend: backend), cleanUp: { await $0.cleanUp() }, body)
}

/// Topic names a test created, collected from any task.
final class TopicList: Sendable {
    private let names = Mutex<[String]>([])

    func append(_ name: String) { names.withLock { $0.append(name) } }
    var all: [String] { names.withLock { $0 } }
}
