import NIOCore

/// The broker side of one relayed connection: passes what the broker sends, and its closing,
/// to the client's ``KafkaSASLFrontEndConnection`` on the same event loop.
final class KafkaSASLUpstreamHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private var connection: KafkaSASLFrontEndConnection?

    init(connection: KafkaSASLFrontEndConnection) {
        self.connection = connection
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        connection?.upstreamRead(unwrapInboundIn(data))
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        connection?.upstreamReadComplete()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        connection?.upstreamWritabilityChanged(isWritable: context.channel.isWritable)
    }

    func channelInactive(context: ChannelHandlerContext) {
        // Dropping the reference ends the cycle client handler → upstream channel → this handler.
        connection?.upstreamClosed()
        connection = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
