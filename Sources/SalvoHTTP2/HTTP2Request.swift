import NIOCore

/// A request as sent by the client or as received by the server.
///
/// `headers` is the whole header block in wire order, pseudo-header fields (`:method`,
/// `:scheme`, `:authority`, `:path`) first. The client sends it exactly as given; the server
/// delivers it exactly as received, duplicates included.
public struct HTTP2Request: Sendable, Equatable {
    public var headers: HTTP2Headers
    /// May be empty; an empty body sends HEADERS with END_STREAM and no DATA frame.
    public var body: ByteBuffer

    /// A request from its parts. `headers` are regular fields (lower-case names) appended after
    /// the pseudo-header fields. Costs one allocation for the header block.
    public init(
        method: String = "POST",
        scheme: String = "https",
        authority: String,
        path: String,
        headers: HTTP2Headers = HTTP2Headers(),
        body: ByteBuffer = ByteBuffer()
    ) {
        // 4 entry headers, the four pseudo-header names (7 + 7 + 10 + 5 bytes), their values.
        let pseudoBytes =
            4 * HTTP2Headers.entryHeaderSize + 29 + method.utf8.count + scheme.utf8.count
            + authority.utf8.count + path.utf8.count
        var block = HTTP2Headers(minimumCapacity: pseudoBytes + headers.storage.readableBytes)
        block.add(name: ":method", value: method)
        block.add(name: ":scheme", value: scheme)
        block.add(name: ":authority", value: authority)
        block.add(name: ":path", value: path)
        block.add(contentsOf: headers)
        self.headers = block
        self.body = body
    }

    /// A request from a complete header block (pseudo-header fields first) and a body.
    public init(headers: HTTP2Headers, body: ByteBuffer = ByteBuffer()) {
        self.headers = headers
        self.body = body
    }

    public var method: String? { self.headers.first(name: ":method") }
    public var scheme: String? { self.headers.first(name: ":scheme") }
    public var authority: String? { self.headers.first(name: ":authority") }
    public var path: String? { self.headers.first(name: ":path") }
}
