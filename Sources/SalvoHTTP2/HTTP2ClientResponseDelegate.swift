/// Receives the responses of requests submitted with
/// `HTTP2SessionHandler.submit(_:deadline:tag:)`: the per-request alternative to a promise for
/// a layer that already tracks its requests (the APNs connection), costing no allocation per
/// request. Called on the event loop, after nghttp2 returned, exactly once per tag.
public protocol HTTP2ClientResponseDelegate: AnyObject {
    func responseReceived(tag: UInt64, _ result: Result<HTTP2Response, HTTP2Error>)
}
