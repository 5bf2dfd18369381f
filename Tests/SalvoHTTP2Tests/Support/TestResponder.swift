import NIOCore
import SalvoHTTP2

/// The application behind a server-mode handler in tests: records every request and either
/// answers at once (through the pipeline, as the mock APNs will) or holds it for the test to
/// answer later through the handler's methods.
final class TestResponder: ChannelInboundHandler {
    typealias InboundIn = HTTP2ReceivedRequest
    typealias OutboundOut = HTTP2Command

    enum Policy {
        case respond((HTTP2ReceivedRequest) -> HTTP2Response)
        case hold
    }

    var policy: Policy
    private(set) var received: [HTTP2ReceivedRequest] = []
    var held: [HTTP2ReceivedRequest] = []
    /// Set by the test to observe the server handler's open-stream count at each request.
    var observeOpenStreams: (() -> Int)?
    private(set) var maxOpenStreamsSeen = 0

    init(policy: Policy) {
        self.policy = policy
    }

    /// Echoes method, path and body, with an `apns-id` like APNs.
    static var echo: Policy {
        .respond { received in
            var headers = HTTP2Headers()
            headers.add(name: "apns-id", value: "id-\(received.streamID)")
            headers.add(name: "x-path", value: received.request.path ?? "")
            return HTTP2Response(
                status: 200, headers: headers,
                body: received.request.body.readableBytes > 0 ? received.request.body : nil)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let request = self.unwrapInboundIn(data)
        self.received.append(request)
        if let observeOpenStreams { self.maxOpenStreamsSeen = max(self.maxOpenStreamsSeen, observeOpenStreams()) }
        switch self.policy {
        case .respond(let makeResponse):
            context.write(
                self.wrapOutboundOut(.respond(streamID: request.streamID, makeResponse(request))), promise: nil)
        case .hold:
            self.held.append(request)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.flush()
        context.fireChannelReadComplete()
    }
}
