import Foundation
import Logging
import SalvoKafka

/// The broker for the Kafka tests: the embedded cluster by default, the real broker (Tansu) when
/// `SALVO_TEST_BROKERS` is set (as `make test` does). Topics are unique per test and the embedded
/// cluster is stopped on every exit path by `with`.
final class LoadTestBroker: Sendable {
    let brokers: [String]
    private let embedded: KafkaEmbeddedCluster?
    private let admin: KafkaAdmin?

    static let logger: Logger = {
        var logger = Logger(label: "salvo.loadtest.test")
        logger.logLevel = .critical
        return logger
    }()

    private init() throws {
        if let configured = ProcessInfo.processInfo.environment["SALVO_TEST_BROKERS"], !configured.isEmpty {
            brokers = configured.split(separator: ",").map(String.init)
            embedded = nil
            admin = try KafkaAdmin(configuration: KafkaClientConfiguration(brokers: brokers), logger: Self.logger)
        } else {
            let cluster = try KafkaEmbeddedCluster(brokers: 1, logger: Self.logger)
            embedded = cluster
            brokers = cluster.brokers
            admin = nil
        }
    }

    var client: KafkaClientConfiguration { KafkaClientConfiguration(brokers: brokers, clientID: "salvo-loadtest-test") }

    func createTopic(_ name: String, partitions: Int = 2) async throws {
        if let embedded {
            try await embedded.createTopic(name, partitions: partitions)
        } else if let admin {
            _ = try await admin.createTopics([KafkaNewTopic(name: name, partitions: partitions)])
        }
    }

    private func cleanUp(topics: [String]) async {
        if let admin {
            try? await admin.deleteTopics(topics)
            await admin.close()
        }
        await embedded?.shutdown()
    }

    /// Runs `body` with a broker and `count` fresh topic names (created), cleaning up afterwards.
    static func with(topics count: Int, _ body: (LoadTestBroker, [String]) async throws -> Void) async throws {
        let broker = try LoadTestBroker()
        let topics = (0..<count).map { "salvo-loadtest-\($0)-\(UInt32.random(in: 0...UInt32.max))" }
        do {
            for topic in topics { try await broker.createTopic(topic) }
            try await body(broker, topics)
        } catch {
            await broker.cleanUp(topics: topics)
            throw error
        }
        await broker.cleanUp(topics: topics)
    }
}
