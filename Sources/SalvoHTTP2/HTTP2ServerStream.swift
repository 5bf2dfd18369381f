import NIOCore

/// A request stream opened by the peer, from its first HEADERS until nghttp2 closes it.
struct HTTP2ServerStream {
    var headers: HTTP2Headers
    var body = ByteBuffer()
    /// Whether the complete request was handed to the next handler.
    var delivered = false

    init(headers: HTTP2Headers) {
        self.headers = headers
    }
}
