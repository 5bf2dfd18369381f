import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Sits first in a connection's pipeline so a reset can bypass TLS and HTTP/2: SO_LINGER 0 then
/// close makes the kernel send a TCP RST, and closing from this position skips NIOSSL's
/// close_notify. The client sees "connection reset by peer", as on a real network fault.
final class MockConnectionResetHandler: ChannelDuplexHandler {
    typealias InboundIn = NIOAny
    typealias OutboundIn = NIOAny

    private var context: ChannelHandlerContext?

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    /// Resets the TCP connection. Must run on the channel's event loop.
    func reset() {
        guard let context else { return }
        guard let provider = context.channel as? any SocketOptionProvider else {
            context.close(promise: nil)
            return
        }
        // Whether or not the option took (a socket already failing), the connection closes.
        provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }
}
