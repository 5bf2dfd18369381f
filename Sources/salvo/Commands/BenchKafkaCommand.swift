import ArgumentParser
import Foundation
import Logging
import SalvoKafka
import SalvoPrimitives
import Synchronization

/// Measures what moving job-sized messages through Kafka costs this process: producing with the
/// idempotent producer, then consuming in a group with `markDone` and commits, as the worker
/// does. CPU time (user + system, all threads, `getrusage`) is the figure that stays stable on
/// a shared machine; wall-clock rates are printed to stderr for context only.
struct BenchKafkaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kafka",
        abstract: "Produce and consume N job-sized messages on a fresh topic; print CPU-s per 100k."
    )

    /// Without either flag (and without SALVO_KAFKA_BROKERS), the brokers of $SALVO_TEST_BROKERS.
    @OptionGroup var kafka: KafkaConnectionOptions

    @Option(help: "Messages to produce and consume.")
    var messages: Int = 1_000_000

    @Option(help: "Bytes per message (a per-user job is about 300).")
    var size: Int = 300

    @Option(help: "Partitions of the benchmark topic.")
    var partitions: Int = 4

    @Flag(help: "Show librdkafka's logs on stderr.")
    var verbose = false

    func validate() throws {
        guard messages >= 1 else { throw ValidationError("--messages must be at least 1") }
        guard (16...1_000_000).contains(size) else { throw ValidationError("--size must be between 16 and 1,000,000") }
        guard partitions >= 1 else { throw ValidationError("--partitions must be at least 1") }
    }

    /// `--kafka-config`/`--brokers`/`SALVO_KAFKA_*`, else `SALVO_TEST_BROKERS` (the test broker).
    private var connection: KafkaConnectionOptions {
        let environment = ProcessInfo.processInfo.environment
        var connection = kafka
        if !kafka.isGiven, environment["SALVO_KAFKA_BROKERS"] == nil,
            let test = environment["SALVO_TEST_BROKERS"], !test.isEmpty
        {
            connection.brokers = test
        }
        return connection
    }

    func run() async throws {
        let logger = CommandLogger.make(label: "salvo.bench", verbose: verbose)
        let client = try connection.client(clientID: "salvo-bench", verbose: verbose)
        let topic = "salvo-bench-\(UInt32.random(in: 0...UInt32.max))"
        let admin = try KafkaAdmin(configuration: client, logger: logger)
        do {
            let created = try await admin.createTopics([KafkaNewTopic(name: topic, partitions: partitions)])
            if case .failed(let error)? = created.first?.outcome {
                throw CommandFailure("cannot create \(topic): \(error.message)")
            }
            let produce = try await measure { try await produceAll(topic: topic, client: client, logger: logger) }
            let consume = try await measure { try await consumeAll(topic: topic, client: client, logger: logger) }
            let per100k = { (cpu: Double) in cpu / Double(messages) * 100_000 }
            FileHandle.standardError.write(
                Data(
                    """
                    produce: \(rate(produce.wall)) msg/s wall, consume: \(rate(consume.wall)) msg/s wall

                    """.utf8))
            print(
                String(
                    format: "kafka produce: %.3f CPU-s/100k, consume: %.3f CPU-s/100k (%d msgs, librdkafka %@)",
                    per100k(produce.cpu), per100k(consume.cpu), messages, RDKafkaLibrary.version
                ))
        } catch {
            try? await admin.deleteTopics([topic])
            await admin.close()
            throw error
        }
        try await admin.deleteTopics([topic])
        await admin.close()
    }

    private func rate(_ wall: Duration) -> Int {
        let seconds = wall.secondsValue
        return seconds > 0 ? Int(Double(messages) / seconds) : 0
    }

    private func produceAll(topic: String, client: KafkaClientConfiguration, logger: Logger) async throws {
        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(client: client), logger: logger)
        let failures = Atomic<Int>(0)
        let value = Self.jobPayload(size: size)
        let keys = (0..<64).map { Array("app-\($0)".utf8) }
        for index in 0..<messages {
            let message = KafkaProducerMessage(topic: topic, key: keys[index % keys.count], value: value)
            try await producer.enqueue(message) { result in
                if case .failure = result { failures.add(1, ordering: .relaxed) }
            }
        }
        try await producer.flush(timeout: .seconds(300))
        await producer.shutdown()
        let failed = failures.load(ordering: .relaxed)
        guard failed == 0 else { throw CommandFailure("\(failed) of \(messages) messages were not delivered") }
    }

    private func consumeAll(topic: String, client: KafkaClientConfiguration, logger: Logger) async throws {
        var configuration = KafkaConsumerConfiguration(client: client, groupID: "\(topic)-group", topics: [topic])
        configuration.sessionTimeout = .seconds(6)
        configuration.heartbeatInterval = .seconds(1)
        let consumer = try KafkaConsumer(configuration: configuration, logger: logger)
        var received = 0
        for try await message in consumer.messages {
            consumer.markDone(message)
            received += 1
            if received == messages { break }
        }
        try await consumer.commitNow()
        try await consumer.close()
        guard received == messages else { throw CommandFailure("consumed \(received) of \(messages) messages") }
    }

    /// A job-shaped JSON document of exactly `size` bytes (padding in the alert text).
    static func jobPayload(size: Int) -> [UInt8] {
        let head =
            #"{"id":"bench","app":"com.example.app","token":"\#(String(repeating: "a1", count: 32))","payload":{"aps":{"alert":""#
        let tail = #""}}}"#
        let padding = max(0, size - head.utf8.count - tail.utf8.count)
        let document = Array((head + String(repeating: "x", count: padding) + tail).utf8)
        return Array(document.prefix(size))
    }

    /// Runs `body` and returns the process CPU time (all threads) and wall time it took.
    private func measure(_ body: () async throws -> Void) async throws -> (cpu: Double, wall: Duration) {
        let cpuBefore = CPUTime.current(.process)
        let start = ContinuousClock.now
        try await body()
        return (CPUTime.current(.process) - cpuBefore, ContinuousClock.now - start)
    }
}
