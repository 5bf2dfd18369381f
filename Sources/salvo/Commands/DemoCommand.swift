import ArgumentParser
import Foundation
import Logging
import SalvoKafka

/// `make demo`: proves the Kafka half of the pipeline on one machine with nothing but the apt
/// packages installed. It starts librdkafka's embedded cluster (or uses `--brokers`), enqueues
/// per-user jobs with the idempotent producer, consumes them in a consumer group with
/// out-of-order `markDone` (the way the worker completes notifications), and checks that the
/// committed offsets reach every partition's end: nothing lost, nothing left uncommitted.
///
/// The mock APNs, the worker pool and the load generator join this command as their issues land.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the pipeline end to end on the embedded Kafka cluster and print a summary."
    )

    @Option(help: "Use this Kafka (host:port,...) instead of the embedded cluster.")
    var brokers: String?

    @Option(help: "Per-user jobs to enqueue.")
    var jobs: Int = 20_000

    @Option(help: "Partitions of the demo topic.")
    var partitions: Int = 4

    @Option(help: "Give up after this many seconds.")
    var timeout: Int = 120

    @Flag(help: "Show librdkafka's logs on stderr.")
    var verbose = false

    func validate() throws {
        guard (1...5_000_000).contains(jobs) else { throw ValidationError("--jobs must be between 1 and 5,000,000") }
        guard (1...256).contains(partitions) else { throw ValidationError("--partitions must be between 1 and 256") }
        guard timeout >= 1 else { throw ValidationError("--timeout must be at least 1 second") }
    }

    func run() async throws {
        let logger = CommandLogger.make(label: "salvo.demo", verbose: verbose)
        let topic = "salvo.jobs.priority.demo-\(UInt32.random(in: 0...UInt32.max))"
        let started = ContinuousClock.now
        let cpuBefore = CPUTime.current(.process)

        let cluster: KafkaEmbeddedCluster?
        let client: KafkaClientConfiguration
        if let brokers {
            cluster = nil
            client = KafkaClientConfiguration(bootstrapServers: brokers, clientID: "salvo-demo")
            let admin = try KafkaAdmin(configuration: client, logger: logger)
            let created = try await admin.createTopics([KafkaNewTopic(name: topic, partitions: partitions)])
            await admin.close()
            if case .failed(let error)? = created.first?.outcome {
                throw CommandFailure("cannot create \(topic) on \(brokers): \(error.message)")
            }
        } else {
            let embedded = try KafkaEmbeddedCluster(logger: logger)
            try await embedded.createTopic(topic, partitions: partitions)
            cluster = embedded
            client = KafkaClientConfiguration(bootstrapServers: embedded.bootstrapServers, clientID: "salvo-demo")
        }
        print("kafka: \(cluster == nil ? "brokers \(brokers ?? "")" : "embedded cluster at \(client.brokers.joined(separator: ","))"), librdkafka \(RDKafkaLibrary.version)")

        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await produceJobs(topic: topic, client: client, logger: logger) }
                group.addTask {
                    try await Task.sleep(for: .seconds(timeout))
                    throw CommandFailure("the demo did not finish within \(timeout) s")
                }
                try await group.next()
                group.cancelAll()
            }
            print("enqueued: \(jobs) per-user jobs on \(topic) (\(partitions) partitions), every one acknowledged by the broker")

            let summary = try await consumeJobs(topic: topic, client: client, logger: logger)
            let cpu = CPUTime.current(.process) - cpuBefore
            let wall = ContinuousClock.now - started
            print("consumed: \(summary.distinct) distinct jobs, \(summary.duplicates) duplicates, completed out of order in batches of 64")
            print("committed: \(summary.committed) of \(jobs) offsets (per partition: \(summary.perPartition))")
            print(String(format: "time: %.1f s wall, %.2f CPU-s for the whole process", wall.seconds, cpu))
            guard summary.distinct == jobs, summary.committed == jobs else {
                throw CommandFailure("lost work: consumed \(summary.distinct) and committed \(summary.committed) of \(jobs) jobs")
            }
            print("demo: OK (Kafka round trip; the mock APNs, worker and load generator join the demo in later issues)")
        } catch {
            await cleanUp(topic: topic, cluster: cluster, client: client, logger: logger)
            throw error
        }
        await cleanUp(topic: topic, cluster: cluster, client: client, logger: logger)
    }

    /// Stops the embedded cluster, or deletes the demo topic from a real Kafka.
    private func cleanUp(topic: String, cluster: KafkaEmbeddedCluster?, client: KafkaClientConfiguration, logger: Logger) async {
        if let cluster {
            await cluster.shutdown()
        } else if let admin = try? KafkaAdmin(configuration: client, logger: logger) {
            try? await admin.deleteTopics([topic])
            await admin.close()
        }
    }

    private func produceJobs(topic: String, client: KafkaClientConfiguration, logger: Logger) async throws {
        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(client: client), logger: logger)
        for index in 0..<jobs {
            let token = String(format: "%064x", index)
            let job = #"{"id":"demo-\#(index)","app":"com.example.demo","token":"\#(token)","push_type":"alert","payload":{"aps":{"alert":"Hello \#(index)"}}}"#
            try await producer.enqueue(KafkaProducerMessage(topic: topic, key: Array(token.utf8), value: Array(job.utf8))) { _ in }
        }
        try await producer.flush(timeout: .seconds(Int64(timeout)))
        await producer.shutdown()
    }

    private struct ConsumeSummary {
        var distinct = 0
        var duplicates = 0
        var committed: Int64 = 0
        var perPartition = ""
    }

    /// Consumes every job and marks them done in shuffled batches, as concurrent notifications
    /// finish in any order; the consumer must still commit only the contiguous watermark.
    private func consumeJobs(topic: String, client: KafkaClientConfiguration, logger: Logger) async throws -> ConsumeSummary {
        var configuration = KafkaConsumerConfiguration(client: client, groupID: "salvo-demo-\(topic)", topics: [topic])
        configuration.sessionTimeout = .seconds(6)
        configuration.heartbeatInterval = .seconds(1)
        let consumer = try KafkaConsumer(configuration: configuration, logger: logger)
        var summary = ConsumeSummary()
        var seen = Set<String>()
        var pending: [KafkaConsumerMessage] = []
        var highest: [KafkaTopicPartition: Int64] = [:]
        for try await message in consumer.messages {
            if seen.insert("\(message.topicPartition)/\(message.offset)").inserted { summary.distinct += 1 } else { summary.duplicates += 1 }
            highest[message.topicPartition] = max(highest[message.topicPartition] ?? -1, message.offset)
            pending.append(message)
            if pending.count == 64 || summary.distinct == jobs {
                for done in pending.shuffled() { consumer.markDone(done) }
                pending.removeAll(keepingCapacity: true)
            }
            if summary.distinct == jobs { break }
        }
        try await consumer.commitNow()
        let partitions = highest.keys.sorted()
        let committed = try await consumer.committedOffsets(for: partitions)
        try await consumer.close()
        summary.committed = partitions.reduce(0) { $0 + ((committed[$1] ?? nil) ?? 0) }
        summary.perPartition = partitions.map { "\($0.partition):\((committed[$0] ?? nil) ?? 0)" }.joined(separator: " ")
        return summary
    }
}

extension Duration {
    /// Seconds as a floating-point number, for human-readable summaries.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
