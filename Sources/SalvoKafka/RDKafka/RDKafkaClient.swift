import CRdKafka
import Logging
import SalvoPrimitives
import Synchronization

/// Owns one `rd_kafka_t` and the event queue it reports on.
///
/// The handle is created here and destroyed by `destroy()`, which only the owning
/// `RDKafkaLoop` thread calls, after every other user has been shut out (see `RDKafkaLoop`).
/// All blocking calls on it are made from that thread.
final class RDKafkaClient: @unchecked Sendable {
    // @unchecked: the handle and queue pointers are immutable; librdkafka makes calls on them
    // thread-safe, and their end of life is ordered by RDKafkaLoop (destroy only after no caller
    // can reach them). The only mutable state, `lastError`, `lastLogText` and `topicNames`, is
    // behind Mutexes.

    enum Kind: Sendable { case producer, consumer }

    /// Which events librdkafka routes to the queue. Logs always travel there (`log.queue=true`).
    static let producerEvents = RD_KAFKA_EVENT_DR | RD_KAFKA_EVENT_LOG | RD_KAFKA_EVENT_ERROR | RD_KAFKA_EVENT_STATS
    static let consumerEvents =
        RD_KAFKA_EVENT_FETCH | RD_KAFKA_EVENT_LOG | RD_KAFKA_EVENT_ERROR
        | RD_KAFKA_EVENT_STATS | RD_KAFKA_EVENT_REBALANCE | RD_KAFKA_EVENT_OFFSET_COMMIT
    static let adminEvents = RD_KAFKA_EVENT_LOG | RD_KAFKA_EVENT_ERROR | RD_KAFKA_EVENT_STATS

    let kind: Kind
    let handle: OpaquePointer
    /// Logs, errors, statistics, delivery reports and (for consumers) rebalances.
    let eventQueue: OpaquePointer
    /// Consumers only: fetched messages, kept apart from `eventQueue` so the loop can stop taking
    /// messages when the application is behind while still serving rebalances. librdkafka then
    /// stops fetching once this queue holds `queued.max.messages.kbytes` or
    /// `queued.min.messages`, which bounds memory without pausing (and re-fetching) partitions.
    let messageQueue: OpaquePointer?
    let logger: Logger
    /// The `client.id` it was made with, under which ``KafkaClientHandles`` counts it.
    let clientID: String
    /// Consumers: whether fetched messages are given their key and headers.
    let readsKeysAndHeaders: Bool
    private let lastError = Mutex<(text: String, code: rd_kafka_resp_err_t)?>(nil)
    /// The names of the topics messages arrived from, so that a message shares its topic's
    /// `String` instead of building one (see ``topicName(_:)``). Only the loop thread uses it.
    let topicNames = Mutex<[String]>([])
    /// Holds back repeated log lines: a broker outage repeats every failure until it ends, in
    /// every client. One for the process, because the log is the process's: a worker's three
    /// clients failing on the same broker are one outage, told once and then counted. Used from
    /// the loop threads through ``log(_:_:kind:detail:metadata:)`` and ``writeLogSummaries(final:)``.
    static let logThrottle = Mutex(LogThrottle<ContinuousClock>())
    /// The text of the latest line librdkafka logged, to recognise the error event that repeats
    /// it (`clientError` in RDKafkaClient+Events.swift). Only the loop thread uses it.
    let lastLogText = Mutex<String?>(nil)

    private init(
        kind: Kind, handle: OpaquePointer, eventQueue: OpaquePointer, messageQueue: OpaquePointer?,
        readsKeysAndHeaders: Bool,
        clientID: String,
        logger: Logger
    ) {
        self.kind = kind
        self.clientID = clientID
        self.handle = handle
        self.eventQueue = eventQueue
        self.messageQueue = messageQueue
        self.readsKeysAndHeaders = readsKeysAndHeaders
        self.logger = logger
    }

    static func make(
        kind: Kind,
        properties: [String: String],
        events: Int32,
        readsKeysAndHeaders: Bool = true,
        logger: Logger
    ) throws(KafkaError) -> RDKafkaClient {
        let conf = try RDKafkaConfig.makeConf(properties, events: events)
        var errorText = [CChar](repeating: 0, count: 512)
        let type = kind == .producer ? RD_KAFKA_PRODUCER : RD_KAFKA_CONSUMER
        guard let handle = rd_kafka_new(type, conf, &errorText, errorText.count) else {
            // rd_kafka_new frees conf only on success: on failure it is still ours.
            rd_kafka_conf_destroy(conf)
            let brokers = properties["bootstrap.servers"].map { " for \($0)" } ?? ""
            throw .configuration("cannot create Kafka client\(brokers): \(String(cCharBuffer: errorText))")
        }
        // From here on `conf` belongs to `handle`.
        _ = rd_kafka_set_log_queue(handle, nil)
        let queue: OpaquePointer?
        switch kind {
        case .producer:
            queue = rd_kafka_queue_get_main(handle)
        case .consumer:
            // Main-queue events (logs, errors, rebalances) join the messages on one queue, so one
            // loop sees everything in order.
            _ = rd_kafka_poll_set_consumer(handle)
            queue = rd_kafka_queue_get_consumer(handle)
        }
        let messageQueue = kind == .consumer ? rd_kafka_queue_new(handle) : nil
        guard let queue, kind == .producer || messageQueue != nil else {
            if let queue { rd_kafka_queue_destroy(queue) }
            if let messageQueue { rd_kafka_queue_destroy(messageQueue) }
            rd_kafka_destroy(handle)
            throw .configuration("librdkafka returned no event queue")
        }
        let clientID = properties["client.id"] ?? ""
        KafkaClientHandles.created(clientID: clientID)
        return RDKafkaClient(
            kind: kind, handle: handle, eventQueue: queue, messageQueue: messageQueue,
            readsKeysAndHeaders: readsKeysAndHeaders, clientID: clientID, logger: logger)
    }

    /// Releases the queue references, then the handle (librdkafka requires that order).
    /// Blocks until librdkafka's threads are gone: call only from the loop thread, once.
    func destroy() {
        rd_kafka_queue_destroy(eventQueue)
        if let messageQueue { rd_kafka_queue_destroy(messageQueue) }
        rd_kafka_destroy(handle)
        KafkaClientHandles.destroyed(clientID: clientID)
    }

    /// Interrupts a blocked poll from another thread.
    func wake() {
        rd_kafka_queue_yield(eventQueue)
        if let messageQueue { rd_kafka_queue_yield(messageQueue) }
    }

    /// The text of the latest client-level error event, e.g. why a broker connection failed.
    var lastErrorText: String? {
        lastError.withLock { $0?.text }
    }

    func recordError(_ text: String, code: rd_kafka_resp_err_t) {
        lastError.withLock { $0 = (text, code) }
    }

    /// A request's failure, with the latest client error event as its detail (or `fallback`).
    /// librdkafka fails a request whose connection could not authenticate with a transport or
    /// time-out code and says why only in the error event (`__AUTHENTICATION`): such a failure
    /// is classed ``KafkaError/Code/authenticationFailed``, so callers can tell wrong credentials
    /// from an unreachable broker.
    func requestFailure(_ error: rd_kafka_resp_err_t, context: String, fallback: String? = nil) -> KafkaError {
        let last = lastError.withLock { $0 }
        var failure = KafkaError.rdKafka(error, context: context, detail: last?.text ?? fallback)
        if last?.code == RD_KAFKA_RESP_ERR__AUTHENTICATION || last?.code == RD_KAFKA_RESP_ERR_SASL_AUTHENTICATION_FAILED
        {
            failure.code = .authenticationFailed
            failure.isRetriable = false
        }
        return failure
    }

    /// The error librdkafka raised when the client turned fatal.
    func fatalError() -> KafkaError? {
        var errorText = [CChar](repeating: 0, count: 512)
        let code = rd_kafka_fatal_error(handle, &errorText, errorText.count)
        guard code != RD_KAFKA_RESP_ERR_NO_ERROR else { return nil }
        return .rdKafka(code, context: "fatal client error", detail: String(cCharBuffer: errorText), isFatal: true)
    }
}
