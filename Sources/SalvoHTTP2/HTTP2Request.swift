import NIOCore

/// A request as sent by the client or as received by the server.
///
/// `headers` is the header block in wire order, pseudo-header fields (`:method`, `:scheme`,
/// `:authority`, `:path`) first. The client sends it exactly as given, with ``sharedHeaders`` (if
/// any) after its pseudo-header fields; the server delivers it exactly as received, duplicates
/// included, and never sets ``sharedHeaders``.
public struct HTTP2Request: Sendable, Equatable {
    public var headers: HTTP2Headers
    /// Fields this request shares with many others, sent by reference (``HTTP2SharedHeaders``)
    /// between `headers`' pseudo-header fields and its regular ones.
    public var sharedHeaders: HTTP2SharedHeaders?
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

    /// A request from its own fields (`:path`, say, and an `apns-id`), a block of fields it
    /// shares with other requests, and a body. Inlinable: built per request in another module,
    /// where an opaque call copied and destroyed the whole value once more.
    @inlinable
    public init(headers: HTTP2Headers, shared: HTTP2SharedHeaders?, body: ByteBuffer = ByteBuffer()) {
        self.headers = headers
        self.sharedHeaders = shared
        self.body = body
    }

    /// Every field as the client sends it: `headers`' pseudo-header fields, ``sharedHeaders``,
    /// then `headers`' regular fields. A new list when there is a shared block (for tests and
    /// tools; the session reads the parts in place).
    public var headerBlock: HTTP2Headers {
        guard let shared = self.sharedHeaders else { return self.headers }
        var block = HTTP2Headers(
            minimumCapacity: self.headers.storage.readableBytes + shared.headers.storage.readableBytes)
        for pseudo in [true, false] {
            self.headers.forEachField { name, value in
                if (name.first == UInt8(ascii: ":")) == pseudo { block.add(name: name, value: value) }
            }
            if pseudo { block.add(contentsOf: shared.headers) }
        }
        return block
    }

    public var method: String? { self.headerBlock.first(name: ":method") }
    public var scheme: String? { self.headerBlock.first(name: ":scheme") }
    public var authority: String? { self.headerBlock.first(name: ":authority") }
    public var path: String? { self.headerBlock.first(name: ":path") }
}
