/// The allocation-free way to receive responses: requests submitted with
/// `HTTP2SessionHandler.submit(_:deadline:tag:)` are answered here with the caller's tag, instead
/// of through an `EventLoopPromise` (a promise, its future and a callback closure cost about
/// 4,000 instructions per request, a tenth of the request's CPU).
///
/// Called on the channel's event loop, after nghttp2 has returned, exactly once per tag.
public protocol HTTP2ResponseDelegate: AnyObject {
    func http2Response(_ result: Result<HTTP2Response, HTTP2Error>, tag: UInt64)
}
