/// The one error type of SalvoLoadTest.
///
/// The code is an extensible struct so new failure classes do not break callers that switch on
/// it; the message names the file, key or resource at fault, because a load test is usually set
/// up by someone editing YAML under time pressure.
public struct LoadTestError: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String

        private init(_ name: String) { self.name = name }

        public var description: String { name }

        /// A scenario file is malformed, has an unknown key, or a value out of range.
        public static let invalidScenario = Code("invalidScenario")
        /// A file could not be read or written.
        public static let file = Code("file")
        /// Kafka refused a job or a client could not be created.
        public static let kafka = Code("kafka")
        /// A tool the run depends on (the mock's admin listener, the worker's metrics) did not answer.
        public static let observation = Code("observation")
        /// The run was cancelled before its schedule ended.
        public static let cancelled = Code("cancelled")
        /// No token with the wanted fate was found within the search bound.
        public static let tokenSearchExhausted = Code("tokenSearchExhausted")
    }

    public var code: Code
    public var message: String
    /// The underlying library's own text (Yams, librdkafka, `strerror`), when there is one.
    public var underlying: String?

    public init(_ code: Code, _ message: String, underlying: String? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    /// Only Kafka and observation failures may go away by trying again.
    public var isRetriable: Bool { self.code == .kafka || self.code == .observation }

    public var description: String {
        underlying.map { "\(message): \($0)" } ?? message
    }
}
