import NIOCore

/// A client request in flight, from submission until nghttp2 closes its stream.
struct HTTP2ClientStream {
    /// `nil` once the caller has been answered (response, timeout or error) while the stream
    /// may still be open, e.g. a body still being sent after the server ended its side.
    var promise: EventLoopPromise<HTTP2Response>?
    var deadline: NIODeadline?
    var status: Int?
    var headers = HTTP2Headers()
    var body: ByteBuffer?

    init(promise: EventLoopPromise<HTTP2Response>, deadline: NIODeadline?) {
        self.promise = promise
        self.deadline = deadline
    }
}
