/// The allocation-free way to receive responses: requests submitted with
/// `HTTP2SessionHandler.submit(_:deadline:tag:)` are answered here with the caller's tag, instead
/// of through an `EventLoopPromise` (a promise, its future and a callback closure cost about
/// 4,000 instructions per request, a tenth of the request's CPU).
///
/// Called on the channel's event loop, after nghttp2 has returned, exactly once per tag: either
/// method, never both.
public protocol HTTP2ResponseDelegate: AnyObject {
    func http2Response(_ result: Result<HTTP2Response, HTTP2Error>, tag: UInt64)

    /// A response that is a status and nothing else: no header the configuration keeps
    /// (`keptResponseHeaders`) and no body. Most answers of a push gateway are one; delivered
    /// without an `HTTP2Response` in the pending queue, they skip its copies (see
    /// ``HTTP2PendingAnswer``). The default passes `HTTP2Response(status:)` to the other method.
    func http2Response(status: Int, tag: UInt64)
}

extension HTTP2ResponseDelegate {
    public func http2Response(status: Int, tag: UInt64) {
        self.http2Response(.success(HTTP2Response(status: status)), tag: tag)
    }
}
