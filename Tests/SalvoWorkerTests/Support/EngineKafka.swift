import Foundation
import Logging
import SalvoKafka
import SalvoTestSupport
import SalvoWorker
import Testing

/// The Kafka side of an engine test: the real broker (Tansu) when `SALVO_TEST_BROKERS` is set
/// (scripts/with-broker.sh), else librdkafka's embedded mock cluster; unique topics per test,
/// deleted (or dropped with the embedded cluster) on every exit path by ``withEngineKafka(_:)``.
final class EngineKafka: Sendable {
    let brokers: [String]
    let topics: WorkerTopics
    let groupID: String
    private let embedded: KafkaEmbeddedCluster?
    private let admin: KafkaAdmin?

    static let logger: Logger = {
        var logger = Logger(label: "salvo.worker.test")
        let level = ProcessInfo.processInfo.environment["SALVO_TEST_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:))
        logger.logLevel = level ?? .critical
        return logger
    }()

    /// `partitions`: of the two job topics; the others get 2.
    init(partitions: Int) async throws {
        let suffix = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        var topics = WorkerTopics(
            jobs: "jobs-\(suffix)", priority: "priority-\(suffix)", retry: "retry-\(suffix)",
            feedback: "feedback-\(suffix)",
            deadLetter: "dlq-\(suffix)", progress: "progress-\(suffix)")
        // Campaign control has tests of its own (Campaigns/); these engines run without it.
        topics.followsControl = false
        self.topics = topics
        groupID = "salvo-test-\(suffix)"
        let layout = [
            (topics.jobs, partitions), (topics.priority, partitions), (topics.retry, 2), (topics.feedback, 2),
            (topics.deadLetter, 2), (topics.progress, 1),
        ]
        if let configured = ProcessInfo.processInfo.environment["SALVO_TEST_BROKERS"], !configured.isEmpty {
            brokers = configured.split(separator: ",").map(String.init)
            embedded = nil
            let admin = try KafkaAdmin(configuration: KafkaClientConfiguration(brokers: brokers), logger: Self.logger)
            self.admin = admin
            // Checkpoints need a compacted topic: the worker refuses to start on any other.
            _ = try await admin.createTopics(
                layout.map {
                    KafkaNewTopic(
                        name: $0.0, partitions: $0.1,
                        configs: $0.0 == topics.progress ? ["cleanup.policy": "compact"] : [:])
                })
            print("librdkafka under test: \(RDKafkaLibrary.version), broker \(brokers.joined(separator: ","))")
        } else {
            let cluster = try KafkaEmbeddedCluster(brokers: 1, logger: Self.logger)
            embedded = cluster
            admin = nil
            brokers = cluster.brokers
            for (name, count) in layout { try await cluster.createTopic(name, partitions: count) }
        }
    }

    /// Quick group joins and fetches (a first join takes about half the session timeout; an idle
    /// fetch waits `fetch.wait.max.ms`).
    var client: KafkaClientConfiguration {
        KafkaClientConfiguration(
            brokers: brokers, clientID: "salvo-worker-test",
            properties: [
                "session.timeout.ms": "6000", "heartbeat.interval.ms": "500", "fetch.wait.max.ms": "20",
            ])
    }

    func cleanUp() async {
        if let admin {
            try? await admin.deleteTopics(topics.all + [topics.progress])
            await admin.close()
        }
        await embedded?.shutdown()
    }

    /// Produces `values` to `topic` and returns where each went.
    func produce(_ values: [String], to topic: String, partition: Int32? = nil) async throws -> [KafkaDeliveryReport] {
        try await produce(bytes: values.map { Array($0.utf8) }, to: topic, partition: partition)
    }

    func produce(
        bytes values: [[UInt8]], to topic: String, partition: Int32? = nil
    ) async throws -> [KafkaDeliveryReport] {
        let producer = try KafkaProducer(
            configuration: KafkaProducerConfiguration(client: KafkaClientConfiguration(brokers: brokers)),
            logger: Self.logger)
        var reports: [KafkaDeliveryReport] = []
        for value in values {
            reports.append(
                try await producer.send(KafkaProducerMessage(topic: topic, partition: partition, value: value)))
        }
        await producer.shutdown()
        return reports
    }

    /// Reads `topic` from the beginning until `count` records arrived or `timeout` passed, then
    /// reads for `settle` more to catch any extra record.
    func read(
        _ topic: String, count: Int, timeout: Duration = .seconds(30), settle: Duration = .milliseconds(500)
    ) async throws -> [KafkaConsumerMessage] {
        var configuration = KafkaConsumerConfiguration(
            client: client, groupID: "reader-\(UUID().uuidString)", topics: [topic])
        configuration.sessionTimeout = .seconds(6)
        configuration.heartbeatInterval = .milliseconds(500)
        let consumer = try KafkaConsumer(configuration: configuration, logger: Self.logger)
        let collected = Task {
            var messages: [KafkaConsumerMessage] = []
            for try await message in consumer.messages {
                messages.append(message)
                consumer.markDone(message)
                if messages.count >= count { break }
            }
            return messages
        }
        let deadline = Task {
            try? await Task.sleep(for: timeout)
            collected.cancel()
        }
        var messages = try await collected.value
        deadline.cancel()
        if messages.count >= count, settle > .zero {
            let extra = Task {
                var more: [KafkaConsumerMessage] = []
                for try await message in consumer.messages { more.append(message) }
                return more
            }
            try? await Task.sleep(for: settle)
            extra.cancel()
            messages += try await extra.value
        }
        try await consumer.close()
        return messages
    }

    /// The worker group's committed offsets for `topic`'s partitions `0..<partitions`.
    func committedOffsets(group: String, topic: String, partitions: Int) async throws -> [Int32: Int64?] {
        // Without joining the group, which would rebalance the workers under test.
        let offsets = try await KafkaGroupOffsets.committed(
            group: group, partitions: (0..<Int32(partitions)).map { KafkaTopicPartition(topic: topic, partition: $0) },
            client: client,
            logger: Self.logger)
        return Dictionary(uniqueKeysWithValues: offsets.map { ($0.key.partition, $0.value) })
    }
}

/// Runs `body` with fresh topics and always cleans up.
func withEngineKafka<T>(partitions: Int = 2, _ body: (EngineKafka) async throws -> T) async throws -> T {
    try await withCleanUp(try await EngineKafka(partitions: partitions), cleanUp: { await $0.cleanUp() }, body)
}
