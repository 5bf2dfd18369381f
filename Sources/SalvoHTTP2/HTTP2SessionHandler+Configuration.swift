extension HTTP2SessionHandler {
    /// Session settings. The defaults suit APNs traffic: many small concurrent requests on one
    /// connection, with large windows so flow control never stalls a burst.
    public struct Configuration: Sendable, Equatable {
        /// SETTINGS_INITIAL_WINDOW_SIZE we advertise: bytes the peer may send on one stream
        /// before nghttp2 acknowledges them. Default: 1 MiB.
        public var initialStreamWindowSize: Int = 1 << 20
        /// Our connection-level receive window. A server receiving a thousand 4 KiB payloads
        /// at once needs more than HTTP/2's 64 KiB default. Default: 16 MiB.
        public var connectionWindowSize: Int = 16 << 20
        /// SETTINGS_MAX_CONCURRENT_STREAMS advertised in server mode: how many requests one
        /// client may have open. Change it at run time with `setMaxConcurrentStreams(_:)`.
        /// Client mode does not advertise it (server push is disabled). Default: 1000.
        public var maxConcurrentStreams: Int = 1000
        /// Client mode: the server's SETTINGS_MAX_CONCURRENT_STREAMS assumed until its first
        /// SETTINGS arrive. Default: 100 (nghttp2's own assumption).
        public var assumedPeerMaxConcurrentStreams: Int = 100
        /// Bytes gathered into one write before writability is checked again; a whole read
        /// burst's output normally fits in one write. Default: 256 KiB.
        public var maxWriteSize: Int = 256 << 10
        /// Largest body accepted. Server: a larger request is reset with CANCEL and never
        /// delivered. Client: a larger response fails its request with `.invalidOperation` once
        /// the server ends the stream (the excess is dropped, no reset is sent). Default: 1 MiB.
        public var maxBodySize: Int = 1 << 20
        /// Largest header block accepted, counted as RFC 9113 §6.5.2 counts it: each field's name
        /// and value plus 32 bytes, so it also bounds the number of fields (2,048 empty ones at
        /// the default). Advertised as SETTINGS_MAX_HEADER_LIST_SIZE and enforced on every block
        /// received, because HPACK lets a peer make us store far more than it sends. Server: a
        /// larger request is reset with PROTOCOL_ERROR and never delivered; the connection goes
        /// on. Client: a larger response fails its request with `.invalidResponse` once the server
        /// ends the stream (no reset is sent). A field name over 65,535 bytes is refused the same
        /// way at any setting. Default: 64 KiB (an APNs request uses about 1 KiB).
        public var maxHeaderListSize: Int = 64 << 10

        /// Client mode: the response header fields delivered (lower-case names); the others are
        /// skipped instead of copied. A client reading two fields of every response (APNs:
        /// `apns-id`, `apns-unique-id`) saves a copy per field it ignores. Default: nil, keep all.
        public var keptResponseHeaders: [String]?

        /// Header fields we send whose values are unique per message (lower-case names), such
        /// as APNs's `apns-id`: they go out as literals HPACK never indexes. Indexing them
        /// gains nothing (no value repeats) and costs both peers a dynamic-table insertion and
        /// an eviction per message. Default: none.
        public var unindexedHeaders: [String] = []

        public init() {}

        /// The one validation place; the handler calls it when it is added to a pipeline.
        public func validate() throws(HTTP2Error) {
            func require(_ condition: Bool, _ message: String) throws(HTTP2Error) {
                if !condition { throw HTTP2Error(.invalidConfiguration, message) }
            }
            try require(
                (0...Int(Int32.max)).contains(self.initialStreamWindowSize),
                "initialStreamWindowSize must be within 0...2^31-1")
            try require(
                (65_535...Int(Int32.max)).contains(self.connectionWindowSize),
                "connectionWindowSize must be within 65535...2^31-1")
            try require(
                (0...Int(UInt32.max)).contains(self.maxConcurrentStreams),
                "maxConcurrentStreams must be within 0...2^32-1")
            try require(
                (1...Int(UInt32.max)).contains(self.assumedPeerMaxConcurrentStreams),
                "assumedPeerMaxConcurrentStreams must be within 1...2^32-1")
            try require(self.maxWriteSize >= 16 * 1024, "maxWriteSize must be at least 16 KiB")
            try require(self.maxBodySize >= 0, "maxBodySize must not be negative")
            try require(
                (4_096...(16 << 20)).contains(self.maxHeaderListSize), "maxHeaderListSize must be within 4096...16 MiB")
            try require(
                self.keptResponseHeaders?.allSatisfy { $0 == $0.lowercased() } ?? true,
                "keptResponseHeaders must be lower-case names (HTTP/2 sends no others)")
            try require(
                self.unindexedHeaders.allSatisfy { $0 == $0.lowercased() }, "unindexedHeaders must be lower-case names")
        }
    }
}
