import ArgumentParser
import Foundation
import Logging
import SalvoKafka
import Synchronization

/// Sends NDJSON lines to a topic, one message per line, with the idempotent producer, and exits
/// only when every delivery report is in. Checks the topic through cluster metadata first,
/// because brokers may auto-create a topic that is merely mistyped.
struct EnqueueCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enqueue",
        abstract: "Send NDJSON lines to a Kafka topic, one message per line.",
        discussion: """
            Each non-empty line becomes one message whose value is the line's exact bytes. The \
            whole input is validated before the first message is sent. Exits non-zero, naming \
            the problem, on a malformed line, an unreachable broker, an unknown topic (unless \
            --create-topic) or any failed delivery.
            """
    )

    @OptionGroup var kafka: KafkaConnectionOptions

    @Option(help: "The Kafka topic to send to.")
    var topic: String

    @Option(name: .customLong("key-field"), help: "Use this top-level string field of each line as the message key.")
    var keyField: String?

    @Option(name: .customLong("header"), help: "Add a header name=value to every message (repeatable).")
    var headers: [String] = []

    @Flag(name: .customLong("create-topic"), help: "Create the topic if it does not exist.")
    var createTopic = false

    @Option(help: "Partitions of a topic created with --create-topic.")
    var partitions: Int = 4

    @Option(name: .customLong("replication-factor"), help: "Replicas of a topic created with --create-topic.")
    var replicationFactor: Int = 1

    @Option(help: "How long to wait for the cluster to answer (e.g. 10s, 500ms).")
    var timeout: DurationArgument = .seconds(10)

    @Option(name: .customLong("delivery-timeout"), help: "How long librdkafka keeps retrying one message.")
    var deliveryTimeout: DurationArgument = .seconds(60)

    @Flag(help: "Show librdkafka's logs on stderr.")
    var verbose = false

    @Argument(help: "The NDJSON file, or - for standard input.")
    var input: String = "-"

    func validate() throws {
        guard partitions >= 1 else { throw ValidationError("--partitions must be at least 1") }
        guard replicationFactor >= 1 else { throw ValidationError("--replication-factor must be at least 1") }
        _ = try parsedHeaders()
    }

    private func parsedHeaders() throws -> [KafkaHeader] {
        try headers.map { header in
            let parts = header.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty else {
                throw ValidationError("--header expects name=value, got '\(header)'")
            }
            return KafkaHeader(key: parts[0], value: parts[1])
        }
    }

    func run() async throws {
        let logger = CommandLogger.make(label: "salvo.enqueue", verbose: verbose)
        let client = try kafka.client(clientID: "salvo-enqueue", verbose: verbose)
        var producerConfiguration = KafkaProducerConfiguration(client: client)
        producerConfiguration.deliveryTimeout = deliveryTimeout.duration

        let lines = try NDJSONInput.load(
            path: input, keyField: keyField, maxLineBytes: producerConfiguration.messageMaxBytes)
        try await ensureTopic(client: client, logger: logger)
        let producer = try KafkaProducer(configuration: producerConfiguration, logger: logger)
        let tally = Tally()
        let progress = Task { await Self.reportProgress(tally, total: lines.lines.count) }
        let headers = try parsedHeaders()
        var enqueueError: (line: Int, error: KafkaError)?
        for line in lines.lines {
            let message = KafkaProducerMessage(topic: topic, key: line.key, value: Array(line.bytes), headers: headers)
            do {
                try await producer.enqueue(message) { tally.record($0) }
                tally.sent.add(1, ordering: .relaxed)
            } catch {
                enqueueError = (line.number, error)
                break
            }
        }
        do {
            try await producer.flush(timeout: deliveryTimeout.duration + .seconds(10))
        } catch {
            logger.warning("flush: \(error)")
        }
        await producer.shutdown(timeout: .seconds(5))
        progress.cancel()
        try report(tally, lines: lines, enqueueError: enqueueError)
    }

    private func report(_ tally: Tally, lines: NDJSONInput, enqueueError: (line: Int, error: KafkaError)?) throws {
        let sent = tally.sent.load(ordering: .relaxed)
        let acked = tally.acked.load(ordering: .relaxed)
        let failed = tally.failed.load(ordering: .relaxed)
        if let enqueueError {
            throw CommandFailure(
                "line \(enqueueError.line) could not be sent: \(enqueueError.error.message); "
                    + "\(acked) earlier message(s) were delivered to \(topic), \(failed) failed",
                exit: CommandExit.status(of: enqueueError.error))
        }
        guard failed == 0, acked == sent else {
            let error = tally.firstError.withLock { $0 }
            throw CommandFailure(
                "\(sent - acked) of \(sent) message(s) were not delivered to \(topic): \(error?.message ?? "no delivery report")",
                exit: error.map(CommandExit.status(of:)) ?? .unavailable)
        }
        print("enqueued \(acked) message(s), \(lines.byteCount) bytes, to \(topic)")
    }

    /// Fails unless the topic exists, creating it when asked to.
    private func ensureTopic(client: KafkaClientConfiguration, logger: Logger) async throws {
        let admin = try KafkaAdmin(configuration: client, logger: logger)
        do {
            try await ensureTopic(admin: admin, brokers: client.brokerList)
        } catch {
            await admin.close()
            throw error
        }
        await admin.close()
    }

    private func ensureTopic(admin: KafkaAdmin, brokers: String) async throws {
        let existing: KafkaTopicMetadata?
        do {
            existing = try await admin.topic(named: topic, timeout: timeout.duration)
        } catch {
            throw CommandFailure(
                "cannot reach broker(s) \(brokers): \(error.message)", exit: CommandExit.status(of: error))
        }
        guard existing == nil else { return }
        guard createTopic else {
            throw CommandFailure(
                "topic \(topic) does not exist on \(brokers); create it (salvo topics create) or pass --create-topic",
                exit: .configuration)
        }
        let results: [KafkaTopicCreationResult]
        do {
            results = try await admin.createTopics(
                [KafkaNewTopic(name: topic, partitions: partitions, replicationFactor: replicationFactor)],
                timeout: timeout.duration
            )
        } catch {
            throw CommandFailure("cannot create topic \(topic): \(error.message)", exit: CommandExit.status(of: error))
        }
        if case .failed(let error)? = results.first?.outcome {
            throw CommandFailure("cannot create topic \(topic): \(error.message)", exit: CommandExit.status(of: error))
        }
        FileHandle.standardError.write(Data("created topic \(topic) (\(partitions) partitions)\n".utf8))
    }

    /// Prints sent/acknowledged counts and the rate to stderr once a second until cancelled.
    private static func reportProgress(_ tally: Tally, total: Int) async {
        let start = ContinuousClock.now
        while (try? await Task.sleep(for: .seconds(1))) != nil {
            let sent = tally.sent.load(ordering: .relaxed)
            let acked = tally.acked.load(ordering: .relaxed)
            let seconds = Double((ContinuousClock.now - start).components.seconds)
            let rate = seconds > 0 ? Int(Double(acked) / seconds) : 0
            FileHandle.standardError.write(Data("enqueue: \(sent)/\(total) sent, \(acked) acked, \(rate) msg/s\n".utf8))
        }
    }

    /// Counts shared between the sending task and librdkafka's delivery reports.
    final class Tally: Sendable {
        let sent = Atomic<Int>(0)
        let acked = Atomic<Int>(0)
        let failed = Atomic<Int>(0)
        let firstError = Mutex<KafkaError?>(nil)

        func record(_ result: Result<KafkaDeliveryReport, KafkaError>) {
            switch result {
            case .success:
                acked.add(1, ordering: .relaxed)
            case .failure(let error):
                failed.add(1, ordering: .relaxed)
                firstError.withLock { $0 = $0 ?? error }
            }
        }
    }
}
