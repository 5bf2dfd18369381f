/// The one error type of SalvoKafka.
///
/// The code is an extensible struct rather than an enum so that new failure classes can be added
/// without breaking callers that switch on it. When librdkafka produced the failure, its own error
/// name and text are kept, because they are what an operator can search for.
public struct KafkaError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The class of failure. Compare with the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String

        private init(_ name: String) { self.name = name }

        public var description: String { name }

        /// A configuration value was rejected, by this layer or by librdkafka.
        public static let configuration = Code("configuration")
        /// No broker could be reached (connection refused, name resolution, all brokers down).
        public static let brokerUnavailable = Code("brokerUnavailable")
        /// An operation did not finish within its time limit.
        public static let timedOut = Code("timedOut")
        /// The topic or partition does not exist in the cluster.
        public static let unknownTopic = Code("unknownTopic")
        /// A topic to create exists already.
        public static let topicAlreadyExists = Code("topicAlreadyExists")
        /// The message was refused (too large, invalid), retrying it unchanged will not help.
        public static let messageRejected = Code("messageRejected")
        /// The cluster refused the client the operation (topic or cluster authorization).
        public static let unauthorized = Code("unauthorized")
        /// The cluster refused the client's credentials (SASL): retrying with the same ones will
        /// not help.
        public static let authenticationFailed = Code("authenticationFailed")
        /// Committing offsets failed.
        public static let commitFailed = Code("commitFailed")
        /// The client raised a fatal error (for example an idempotent producer lost its sequence).
        public static let fatal = Code("fatal")
        /// The client was shut down before the operation completed.
        public static let shutdown = Code("shutdown")
        /// The waiting task was cancelled.
        public static let cancelled = Code("cancelled")
        /// Any other error reported by librdkafka or the broker; see `rdKafkaErrorName`.
        public static let broker = Code("broker")
    }

    /// The class of failure.
    public var code: Code
    /// Human-readable text, including librdkafka's own error string when there is one.
    public var message: String
    /// librdkafka's symbolic error name (`rd_kafka_err2name`, e.g. `_TRANSPORT`), if any.
    public var rdKafkaErrorName: String?
    /// The raw `rd_kafka_resp_err_t` value, if any.
    public var rdKafkaErrorCode: Int32?
    /// Whether trying the same operation again later may succeed.
    public var isRetriable: Bool
    /// Whether the client that raised it is unusable from now on.
    public var isFatal: Bool

    /// Whether producing the same record again can never succeed: it is too large or invalid for
    /// the cluster, or the client is not authorized for its topic. A caller that retries such a
    /// record forever blocks whatever waits for it.
    public var isPermanent: Bool {
        !isRetriable && !isFatal && (code == .messageRejected || code == .unauthorized)
    }
    /// Where in Salvo the error was created.
    public var file: String
    /// Where in Salvo the error was created.
    public var line: Int

    public init(
        code: Code,
        message: String,
        rdKafkaErrorName: String? = nil,
        rdKafkaErrorCode: Int32? = nil,
        isRetriable: Bool = false,
        isFatal: Bool = false,
        file: String = #fileID,
        line: Int = #line
    ) {
        self.code = code
        self.message = message
        self.rdKafkaErrorName = rdKafkaErrorName
        self.rdKafkaErrorCode = rdKafkaErrorCode
        self.isRetriable = isRetriable
        self.isFatal = isFatal
        self.file = file
        self.line = line
    }

    public var description: String {
        var text = "KafkaError.\(code): \(message)"
        if let rdKafkaErrorName { text += " [\(rdKafkaErrorName)]" }
        return text
    }

    static func shutdown(_ message: String, file: String = #fileID, line: Int = #line) -> KafkaError {
        KafkaError(code: .shutdown, message: message, file: file, line: line)
    }

    static func configuration(_ message: String, file: String = #fileID, line: Int = #line) -> KafkaError {
        KafkaError(code: .configuration, message: message, file: file, line: line)
    }

    static func timedOut(_ message: String, file: String = #fileID, line: Int = #line) -> KafkaError {
        KafkaError(code: .timedOut, message: message, isRetriable: true, file: file, line: line)
    }
}
