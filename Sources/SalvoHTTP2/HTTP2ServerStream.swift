import NIOCore

/// A request stream opened by the peer, from its first HEADERS until nghttp2 closes it.
struct HTTP2ServerStream {
    let streamID: Int32
    var headers = HTTP2Headers()
    var body = ByteBuffer()
    /// Whether the complete request was handed to the next handler.
    var delivered = false
    /// Whether a response was submitted (a second one is refused).
    var answered = false
    /// What nghttp2 has not yet pulled into DATA frames of the response.
    var responseBody: ByteBuffer?

    init(streamID: Int32) {
        self.streamID = streamID
    }
}
