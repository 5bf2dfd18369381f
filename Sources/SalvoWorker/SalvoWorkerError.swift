/// The one error type of SalvoWorker.
///
/// Bad *input* is not an error here: a job that cannot be sent becomes a ``JobRejection`` value
/// that is dead-lettered, because bad input must never stop a partition. This type covers the
/// worker's own mistakes, such as a configuration outside its documented range, which are fixed by
/// an operator and never by retrying.
public struct SalvoWorkerError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as an extensible set: new codes can be added without breaking `switch`es.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case invalidConfiguration
            case refusedToStart
            case finalCommitFailed
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// A configuration value is outside its documented range.
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// The cluster does not match the configuration (a state topic missing or not compacted,
        /// a new consumer group facing an old backlog): starting would lose state or re-send.
        /// The message is one line naming the topic or group and the key to set.
        public static let refusedToStart = Code(.refusedToStart)
        /// A drain could not commit its consumers' offsets before its deadline: the message says
        /// what the partitions' next owner reads again and whether it sends any of it again.
        public static let finalCommitFailed = Code(.finalCommitFailed)

        public var description: String { base.rawValue }
    }

    public var code: Code
    /// Names the setting and the rule it breaks.
    public var message: String
    public var file: String
    public var line: Int

    public init(code: Code, message: String, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.message = message
        self.file = file
        self.line = line
    }

    /// A configuration setting is outside its range.
    static func invalidConfiguration(_ message: String, file: String = #fileID, line: Int = #line) -> SalvoWorkerError {
        SalvoWorkerError(code: .invalidConfiguration, message: message, file: file, line: line)
    }

    /// The worker will not start against this cluster as configured.
    static func refusedToStart(_ message: String, file: String = #fileID, line: Int = #line) -> SalvoWorkerError {
        SalvoWorkerError(code: .refusedToStart, message: message, file: file, line: line)
    }

    /// Configuration errors are fixed by an operator; retrying cannot help. A failed final
    /// commit is the cluster's state at the time: the next start commits.
    public var isRetriable: Bool { code == .finalCommitFailed }

    public var description: String { "SalvoWorkerError.\(code): \(message) [\(file):\(line)]" }
}
