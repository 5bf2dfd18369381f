import NIOCore
import NIOHTTP1

/// Answers each HTTP/1.1 request on one connection from the route table. Request bodies are
/// ignored (no route takes one); `connection: close` requests are closed after their answer.
final class WorkerOperationsHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let router: WorkerOperationsRouter
    private var head: HTTPRequestHead?

    init(router: WorkerOperationsRouter) {
        self.router = router
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
        case .body:
            break
        case .end:
            guard let head else { return }
            self.head = nil
            respond(router.respond(method: head.method, uri: head.uri), keepAlive: head.isKeepAlive, context: context)
        }
    }

    private func respond(_ response: WorkerOperationsResponse, keepAlive: Bool, context: ChannelHandlerContext) {
        var headers = HTTPHeaders()
        headers.add(name: "content-type", value: response.contentType)
        headers.add(name: "content-length", value: String(response.body.count))
        if let allow = response.allow { headers.add(name: "allow", value: allow) }
        if !keepAlive { headers.add(name: "connection", value: "close") }
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: response.status, headers: headers))),
            promise: nil)
        context.write(
            wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: response.body)))), promise: nil)
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            written.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }
}
