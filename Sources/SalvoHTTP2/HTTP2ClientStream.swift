import NIOCore

/// A client request in flight, from submission until nghttp2 closes its stream.
struct HTTP2ClientStream {
    /// Who gets the response: a promise, or the handler's `responseDelegate` with the caller's
    /// tag (no allocation per request).
    enum Responder {
        case promise(EventLoopPromise<HTTP2Response>)
        case tag(UInt64)
    }

    /// `nil` once the caller has been answered (response, timeout or error) while the stream
    /// may still be open, e.g. a body still being sent after the server ended its side.
    var responder: Responder?
    var deadline: NIODeadline?
    var status: Int?
    var headers = HTTP2Headers()
    var body: ByteBuffer?

    init(responder: Responder, deadline: NIODeadline?) {
        self.responder = responder
        self.deadline = deadline
    }
}
