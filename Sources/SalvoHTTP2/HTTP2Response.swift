import NIOCore

/// A response as received by the client or as written by the server.
public struct HTTP2Response: Sendable, Equatable {
    /// The `:status` code.
    public var status: Int
    /// Regular header fields in wire order (`:status` is not repeated here); received trailers
    /// are appended.
    public var headers: HTTP2Headers
    /// The body; `nil` when the response had no DATA (an APNs 200).
    public var body: ByteBuffer?

    public init(status: Int, headers: HTTP2Headers = HTTP2Headers(), body: ByteBuffer? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
