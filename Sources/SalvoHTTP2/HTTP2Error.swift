/// Every failure SalvoHTTP2 reports: to a request's promise, to a write's promise, or through
/// `errorCaught`.
///
/// The line that matters to callers is `isSafeToReplay`: a `.notSent` request never reached the
/// server's application (refused stream, above a GOAWAY's last-stream-id, never written), so
/// replaying it on another connection cannot duplicate a notification. `.connectionLost` and
/// `.timeout` may have been processed.
public struct HTTP2Error: Error, Sendable, CustomStringConvertible {
    /// Extensible: a struct with static members rather than an enum.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public var name: String

        public init(_ name: String) {
            self.name = name
        }

        public var description: String { self.name }

        /// The request was not processed by the server: REFUSED_STREAM, a stream above a
        /// GOAWAY's last-stream-id, a submission after GOAWAY or close, or HEADERS never written.
        public static let notSent = Code("notSent")
        /// The connection went away after the request's HEADERS were written and before its
        /// response ended; the server may have processed it.
        public static let connectionLost = Code("connectionLost")
        /// The peer reset the stream with a code other than REFUSED_STREAM (`http2ErrorCode`).
        /// PROTOCOL_ERROR means the server found the request malformed (RFC 9113 §8.1.1).
        public static let streamReset = Code("streamReset")
        /// The server's response broke HTTP/2's rules or this handler's bounds (a malformed or
        /// oversized header block): nghttp2 reset the stream, or the response was dropped. The
        /// server may have processed the request.
        public static let invalidResponse = Code("invalidResponse")
        /// The request's deadline passed before the server ended the response.
        public static let timeout = Code("timeout")
        /// libnghttp2 returned an error (`libraryErrorCode`, message from `nghttp2_strerror`).
        public static let library = Code("library")
        /// The operation does not fit the handler's mode or state, e.g. a response for a stream
        /// that is already closed, or a client request on a server-mode handler.
        public static let invalidOperation = Code("invalidOperation")
        /// A configuration value is out of range.
        public static let invalidConfiguration = Code("invalidConfiguration")
    }

    public var code: Code
    /// Human-readable detail: nghttp2's own text for library errors.
    public var message: String
    /// The RST_STREAM or GOAWAY code, when a peer's frame caused the error.
    public var http2ErrorCode: HTTP2ErrorCode?
    /// The negative `nghttp2_error` value, for `.library` errors.
    public var libraryErrorCode: Int32?
    /// Where the error was raised.
    public var fileID: String
    public var line: Int

    public init(
        _ code: Code,
        _ message: String,
        http2ErrorCode: HTTP2ErrorCode? = nil,
        libraryErrorCode: Int32? = nil,
        fileID: String = #fileID,
        line: Int = #line
    ) {
        self.code = code
        self.message = message
        self.http2ErrorCode = http2ErrorCode
        self.libraryErrorCode = libraryErrorCode
        self.fileID = fileID
        self.line = line
    }

    /// The server did not process the request: replaying it elsewhere cannot duplicate it.
    public var isSafeToReplay: Bool { self.code == .notSent }

    /// Whether trying again (on this or another connection) can succeed. Timeouts, lost
    /// connections and resets are transient; library, mode and configuration errors are not.
    public var isRetriable: Bool {
        switch self.code {
        case .notSent, .connectionLost, .timeout, .streamReset, .invalidResponse: return true
        default: return false
        }
    }

    public var description: String {
        var text = "HTTP2Error.\(self.code): \(self.message)"
        if let http2ErrorCode { text += " [\(http2ErrorCode)]" }
        if let libraryErrorCode { text += " [nghttp2 \(libraryErrorCode)]" }
        return text + " (\(self.fileID):\(self.line))"
    }
}
