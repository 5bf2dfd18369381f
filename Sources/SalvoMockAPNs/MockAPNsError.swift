/// The one error type of SalvoMockAPNs: configuration, scenario, files, TLS material and binding.
/// Everything here happens at start-up or on an operator's command; requests are answered with
/// APNs reasons (`APNsReason`), never with this error.
public struct MockAPNsError: Error, Sendable, CustomStringConvertible {
    /// Extensible: a struct with static members rather than an enum.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public var name: String

        public init(_ name: String) {
            self.name = name
        }

        public var description: String { self.name }

        /// A configuration value is out of range or inconsistent.
        public static let invalidConfiguration = Code("invalidConfiguration")
        /// A scenario file or value is malformed or out of range.
        public static let invalidScenario = Code("invalidScenario")
        /// A certificate, key or scenario file could not be read or written.
        public static let fileUnreadable = Code("fileUnreadable")
        /// Certificate or key material is unusable (bad PEM, wrong key type).
        public static let invalidKeyMaterial = Code("invalidKeyMaterial")
        /// A listener could not be bound (address in use, bad address).
        public static let bindFailed = Code("bindFailed")
        /// The operation needs a running server (or one not yet started).
        public static let invalidState = Code("invalidState")
    }

    public var code: Code
    public var message: String
    /// The underlying library's own text (NIO, NIOSSL, swift-crypto, Yams), if any.
    public var underlying: String?
    public var fileID: String
    public var line: Int

    public init(_ code: Code, _ message: String, underlying: String? = nil, fileID: String = #fileID, line: Int = #line)
    {
        self.code = code
        self.message = message
        self.underlying = underlying
        self.fileID = fileID
        self.line = line
    }

    public var description: String {
        var text = "MockAPNsError.\(self.code): \(self.message)"
        if let underlying { text += " (\(underlying))" }
        return text + " [\(self.fileID):\(self.line)]"
    }
}
