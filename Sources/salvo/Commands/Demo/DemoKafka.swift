import Logging
import SalvoKafka
import SalvoLoadTest
import SalvoWorker

/// The demo's Kafka: librdkafka's in-process mock cluster, or a real Kafka (`--kafka-config`,
/// `--brokers`) on which
/// the demo creates topics of its own and deletes them at the end, so a shared cluster keeps no
/// trace of it.
///
/// Every topic name carries a random run prefix on both, so two demos against one cluster never
/// read each other's jobs.
final class DemoKafka: Sendable {
    /// Partitions of the two job topics. Eight, because the embedded cluster keeps at most
    /// 5 MiB per partition: twenty 670 kB campaign jobs hashed by key over four partitions
    /// could put eight on one and lose the oldest before the worker reads it.
    static let jobPartitions = 8
    /// Partitions of retry, feedback and dead-letter topics. Default: 2.
    static let outputPartitions = 2

    let workerTopics: WorkerTopics
    let description: String
    private let base: KafkaClientConfiguration
    private let cluster: KafkaEmbeddedCluster?
    private let logger: Logger

    /// Starts the embedded cluster (`connection` nil) or creates the topics on the cluster
    /// `connection` names.
    init(connection: KafkaClientConfiguration?, logger: Logger) async throws {
        let prefix = "salvo-demo-\(String(UInt32.random(in: 0...UInt32.max), radix: 36))"
        workerTopics = WorkerTopics(
            jobs: "\(prefix).jobs", priority: "\(prefix).jobs.priority", retry: "\(prefix).retry",
            feedback: "\(prefix).feedback", deadLetter: "\(prefix).dlq", control: "\(prefix).control",
            campaigns: "\(prefix).campaigns",
            progress: "\(prefix).progress")
        self.logger = logger
        let layout = [
            (workerTopics.jobs, Self.jobPartitions), (workerTopics.priority, Self.jobPartitions),
            (workerTopics.retry, Self.outputPartitions), (workerTopics.feedback, Self.outputPartitions),
            (workerTopics.deadLetter, Self.outputPartitions), (workerTopics.progress, 1),
            (workerTopics.control, 1), (workerTopics.campaigns, 1),
        ]
        if let connection {
            cluster = nil
            base = connection
            let brokers = connection.brokerList
            description = "Kafka at \(brokers), topics \(prefix).* (deleted at the end)"
            let admin = try KafkaAdmin(configuration: connection, logger: logger)
            let results: [KafkaTopicCreationResult]
            do {
                // Each role's required settings (compaction of the state topics), which the
                // worker's start checks refuse to do without on a real cluster.
                let configs = Dictionary(
                    WorkerTopicRequirement.all(workerTopics).map { ($0.name, $0.requiredConfigs) },
                    uniquingKeysWith: { $1 })
                results = try await admin.createTopics(
                    layout.map { KafkaNewTopic(name: $0.0, partitions: $0.1, configs: configs[$0.0] ?? [:]) })
            } catch {
                await admin.close()
                throw CommandFailure(
                    "cannot create the demo topics on \(brokers): \(error)",
                    exit: CommandExit.status(of: error) ?? .software)
            }
            await admin.close()
            for result in results {
                if case .failed(let error) = result.outcome {
                    await deleteTopics()
                    throw CommandFailure(
                        "cannot create \(result.name) on \(brokers): \(error.message)",
                        exit: CommandExit.status(of: error))
                }
            }
        } else {
            let embedded = try KafkaEmbeddedCluster(logger: logger)
            cluster = embedded
            base = KafkaClientConfiguration(bootstrapServers: embedded.bootstrapServers, clientID: "salvo-demo")
            description =
                "embedded Kafka cluster at \(embedded.bootstrapServers) (librdkafka's mock cluster, in this process)"
            do {
                for (name, partitions) in layout { try await embedded.createTopic(name, partitions: partitions) }
            } catch {
                await embedded.shutdown()
                throw CommandFailure("cannot create the demo topics on the embedded cluster: \(error)")
            }
        }
    }

    /// Quick group joins and fetches: a first join takes about half the session timeout, and an
    /// idle fetch waits `fetch.wait.max.ms`, which would otherwise show in the priority lane's
    /// latency. The connection's own properties (security, SASL) win.
    var client: KafkaClientConfiguration {
        var client = base
        let tuning = ["session.timeout.ms": "6000", "heartbeat.interval.ms": "500", "fetch.wait.max.ms": "20"]
        client.properties.merge(tuning) { own, _ in own }
        return client
    }

    /// The same topics as the load generator names them.
    var loadTopics: LoadTestScenario.Topics {
        var topics = LoadTestScenario.Topics()
        topics.campaign = workerTopics.jobs
        topics.priority = workerTopics.priority
        topics.feedback = workerTopics.feedback
        topics.deadLetters = workerTopics.deadLetter
        topics.control = workerTopics.control
        topics.campaigns = workerTopics.campaigns
        return topics
    }

    /// Stops the embedded cluster, or deletes the demo's topics from the real one.
    func shutdown() async {
        if let cluster {
            await cluster.shutdown()
        } else {
            await deleteTopics()
        }
    }

    private func deleteTopics() async {
        guard let admin = try? KafkaAdmin(configuration: base, logger: logger) else { return }
        do {
            try await admin.deleteTopics(workerTopics.all + workerTopics.compactedTopics)
        } catch {
            logger.warning("cannot delete the demo topics: \(error)")
        }
        await admin.close()
    }
}
