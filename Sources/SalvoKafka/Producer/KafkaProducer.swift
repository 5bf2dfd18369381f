import Logging
import Synchronization

/// An idempotent Kafka producer.
///
/// `send` returns once the broker acknowledged the message (or delivery failed for good);
/// `enqueue` is the cheap variant for volume: it returns once librdkafka holds the message and
/// reports the outcome later through a callback. Both wait (never fail) while librdkafka's
/// bounded queue is full. Delivery reports come from librdkafka's event queue, drained by one
/// dedicated thread.
public final class KafkaProducer: Sendable {
    /// How long a producer dropped without `shutdown` keeps trying to deliver.
    static let implicitShutdownTimeout: Duration = .seconds(10)

    private let core: Core
    public let configuration: KafkaProducerConfiguration

    /// - Parameter observer: Told about every delivery report (for metrics).
    public init(
        configuration: KafkaProducerConfiguration,
        logger: Logger = Logger(label: "salvo.kafka.producer"),
        observer: KafkaProducerObserver? = nil
    ) throws(KafkaError) {
        try configuration.validate()
        let client = try RDKafkaClient.make(
            kind: .producer,
            properties: RDKafkaConfig.producerProperties(configuration, logLevel: logger.logLevel),
            events: RDKafkaClient.producerEvents,
            logger: logger
        )
        self.configuration = configuration
        self.core = Core(client: client, observer: observer, logger: logger)
        core.loop.start(delegate: core)
    }

    deinit {
        core.requestShutdown(timeout: Self.implicitShutdownTimeout)
    }

    /// Produces one message and returns where the broker stored it.
    public func send(_ message: KafkaProducerMessage) async throws(KafkaError) -> KafkaDeliveryReport {
        while true {
            let attempt: SendAttempt = await withCheckedContinuation { continuation in
                if let immediate = core.tryProduce(message, completion: .continuation(continuation)) {
                    continuation.resume(returning: immediate)
                }
            }
            switch attempt {
            case .delivered(let result):
                return try result.get()
            case .queueFull:
                try await waitForRoom()
            }
        }
    }

    /// Hands one message to librdkafka and returns; `onDelivery` runs later on the producer's
    /// event thread (keep it short) with the broker's answer. Throws when the message cannot be
    /// enqueued (then `onDelivery` is never called).
    public func enqueue(
        _ message: KafkaProducerMessage,
        onDelivery: @escaping @Sendable (Result<KafkaDeliveryReport, KafkaError>) -> Void
    ) async throws(KafkaError) {
        while true {
            switch core.tryProduce(message, completion: .callback(onDelivery)) {
            case nil:
                return
            case .delivered(let result):
                _ = try result.get()
                return
            case .queueFull:
                try await waitForRoom()
            }
        }
    }

    private func waitForRoom() async throws(KafkaError) {
        guard !Task.isCancelled else {
            throw KafkaError(code: .cancelled, message: "cancelled while waiting for room in the producer queue")
        }
        try await core.waitForCapacity()
    }

    /// Messages handed over whose delivery report has not arrived yet.
    public var outstandingCount: Int {
        core.shared.withLock { $0.machine.outstandingCount }
    }

    /// Waits until every message handed over so far has its delivery report.
    public func flush(timeout: Duration) async throws(KafkaError) {
        try await core.flush(timeout: timeout)
    }

    /// Refuses new messages, waits up to `timeout` for outstanding deliveries, fails the rest
    /// with `.shutdown`, and releases the client.
    public func shutdown(timeout: Duration = .seconds(10)) async {
        await core.shutdown(timeout: timeout)
    }
}
