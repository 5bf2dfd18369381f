import SalvoHTTP2

/// Passes the session handler's answers on to the connection handler.
///
/// Why not let the connection handler be the delegate itself: the session holds its delegate
/// weakly (hot-path rule 2, docs/performance-notes.md), and the connection handler is retained
/// and released several times per request; this small object only once per answer.
final class APNsResponseRelay: HTTP2ResponseDelegate {
    /// `unowned`: the handler owns this relay, so it is alive whenever the relay is.
    private unowned let handler: APNsConnectionHandler

    init(handler: APNsConnectionHandler) {
        self.handler = handler
    }

    func http2Response(_ result: Result<HTTP2Response, HTTP2Error>, tag: UInt64) {
        self.handler.http2Response(result, tag: tag)
    }

    func http2Response(status: Int, tag: UInt64) {
        self.handler.http2Response(status: status, tag: tag)
    }
}
