import NIOCore
import NIOPosix
import NIOSSL

/// One client connection: frames the client's bytes and runs the ``KafkaSASLSession`` on them
/// until it authenticates, then relays bytes between the client and its own connection to the
/// broker behind, both ways, untouched. Confined to the client channel's event loop; the
/// upstream channel is opened on the same loop, so both sides are handled on one thread.
///
/// Relaying writes as it reads and flushes once per read burst; a side that cannot keep up
/// stops the other side's reads until it drains (a load test through the front end must not
/// pile its records up in memory here).
final class KafkaSASLFrontEndConnection: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// A Kafka broker's default `sasl.server.max.receive.size`: a larger frame before
    /// authentication is not a SASL request.
    static let maximumFrameSize = 524_288

    private enum Upstream {
        case none
        /// Bytes wait here until the connection is up.
        case connecting(pending: [ByteBuffer])
        case connected(any Channel)
        case closed
    }

    private let shared: KafkaSASLFrontEndShared
    private var session: KafkaSASLSession
    private var context: ChannelHandlerContext?
    private var upstream = Upstream.none
    /// The client's bytes not yet framed (before relaying only).
    private var inbound = ByteBuffer()
    /// The broker's answers not yet framed (before relaying only).
    private var upstreamInbound = ByteBuffer()
    /// An ApiVersions request is with the broker: later frames wait, so answers keep their order.
    private var awaitingUpstreamAnswer = false
    /// An answer that ends the connection is being written; nothing more is read.
    private var isClosing = false

    init(shared: KafkaSASLFrontEndShared) {
        self.shared = shared
        self.session = KafkaSASLSession(accounts: shared.accounts)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        shared.update { $0.connections += 1 }
        if session.isRelaying { connectUpstream() }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if case .connected(let channel) = upstream { channel.close(promise: nil) }
        upstream = .closed
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // TLS handshake failures (the client does not trust the certificate) and resets end here.
        if error is NIOSSLError { shared.update { $0.tlsFailures += 1 } }
        context.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        guard !isClosing else { return }
        if session.isRelaying, case .connected(let channel) = upstream {
            channel.write(bytes, promise: nil)
        } else if session.isRelaying {
            sendUpstream(bytes)
        } else {
            inbound.writeBuffer(&bytes)
            processFrames()
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if case .connected(let channel) = upstream { channel.flush() }
        context.fireChannelReadComplete()
    }

    /// The client reads slowly: stop reading from the broker until it catches up.
    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if case .connected(let channel) = upstream {
            channel.setOption(ChannelOptions.autoRead, value: context.channel.isWritable).whenFailure { _ in }
        }
        context.fireChannelWritabilityChanged()
    }

    // MARK: Before authentication

    /// Hands every complete frame to the session, in order, until one must wait or ends it.
    private func processFrames() {
        while !awaitingUpstreamAnswer, !isClosing, !session.isRelaying,
            let size = inbound.getInteger(at: inbound.readerIndex, as: Int32.self)
        {
            guard size >= 0, Int(size) <= Self.maximumFrameSize else {
                return perform(.close(.refusedRequest("frame of \(size) bytes before authentication")), frame: nil)
            }
            guard let frame = inbound.readSlice(length: 4 + Int(size)) else { return }
            let payload = frame.getSlice(at: frame.readerIndex + 4, length: Int(size)) ?? ByteBuffer()
            perform(session.receive(frame: payload), frame: frame)
        }
        if session.isRelaying, !isClosing, inbound.readableBytes > 0 {
            // Requests the client sent right behind its last SASL token belong to the broker.
            sendUpstream(inbound)
            inbound.clear()
        }
    }

    private func perform(_ action: KafkaSASLSession.Action, frame: ByteBuffer?) {
        guard let context else { return }
        switch action {
        case .forwardToUpstream:
            awaitingUpstreamAnswer = true
            if let frame { sendUpstream(frame) }
        case .reply(let answer):
            context.writeAndFlush(wrapOutboundOut(answer), promise: nil)
        case .replyAndClose(let answer, let failure):
            shared.update { $0.count(failure) }
            isClosing = true
            // Close once the answer is written, so the client reads why before the connection ends.
            context.writeAndFlush(wrapOutboundOut(answer)).assumeIsolated().whenComplete { _ in
                context.close(promise: nil)
            }
        case .replyAndRelay(let answer, let user, let mechanism):
            shared.update {
                $0.authenticated[mechanism, default: 0] += 1
                $0.users.append(user)
            }
            if let answer { context.writeAndFlush(wrapOutboundOut(answer), promise: nil) }
            if case .none = upstream { connectUpstream() }
        case .close(let failure):
            shared.update { $0.count(failure) }
            isClosing = true
            context.close(promise: nil)
        }
    }

    // MARK: The broker behind

    /// Bytes from the broker: before relaying they are ApiVersions answers, passed on whole
    /// frames at a time so the session knows when the answer is complete.
    func upstreamRead(_ bytes: ByteBuffer) {
        guard let context, !isClosing else { return }
        if session.isRelaying, upstreamInbound.readableBytes == 0 {
            // Flushed by `upstreamReadComplete`.
            context.write(wrapOutboundOut(bytes), promise: nil)
            return
        }
        var bytes = bytes
        upstreamInbound.writeBuffer(&bytes)
        if !session.isRelaying {
            while let size = upstreamInbound.getInteger(at: upstreamInbound.readerIndex, as: Int32.self), size >= 0,
                let answer = upstreamInbound.readSlice(length: 4 + Int(size))
            {
                context.writeAndFlush(wrapOutboundOut(answer), promise: nil)
                awaitingUpstreamAnswer = false
            }
            processFrames()
        }
        if session.isRelaying, upstreamInbound.readableBytes > 0 {
            context.writeAndFlush(wrapOutboundOut(upstreamInbound), promise: nil)
            upstreamInbound = ByteBuffer()
        }
    }

    func upstreamReadComplete() {
        context?.flush()
    }

    /// The broker reads slowly: stop reading from the client until it catches up.
    func upstreamWritabilityChanged(isWritable: Bool) {
        context?.channel.setOption(ChannelOptions.autoRead, value: isWritable).whenFailure { _ in }
    }

    func upstreamClosed() {
        upstream = .closed
        context?.close(promise: nil)
    }

    private func sendUpstream(_ bytes: ByteBuffer) {
        switch upstream {
        case .none:
            upstream = .connecting(pending: [bytes])
            connectUpstream()
        case .connecting(var pending):
            pending.append(bytes)
            upstream = .connecting(pending: pending)
        case .connected(let channel):
            channel.writeAndFlush(bytes, promise: nil)
        case .closed:
            break
        }
    }

    private func connectUpstream() {
        guard let context else { return }
        if case .none = upstream { upstream = .connecting(pending: []) }
        guard let address = shared.upstream else {
            shared.update { $0.upstreamFailures += 1 }
            return context.close(promise: nil)
        }
        let connection = NIOLoopBound(self, eventLoop: context.eventLoop)
        ClientBootstrap(group: context.eventLoop)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .connectTimeout(.seconds(5))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        KafkaSASLUpstreamHandler(connection: connection.value))
                }
            }
            .connect(host: address.host, port: address.port)
            .assumeIsolated()
            .whenComplete { result in connection.value.upstreamConnected(result) }
    }

    private func upstreamConnected(_ result: Result<any Channel, any Error>) {
        switch (result, upstream) {
        case (.success(let channel), .connecting(let pending)):
            shared.register(channel)
            upstream = .connected(channel)
            for bytes in pending { channel.write(bytes, promise: nil) }
            channel.flush()
        case (.success(let channel), _):
            // The client left while the connection was being opened.
            channel.close(promise: nil)
        case (.failure, _):
            shared.update { $0.upstreamFailures += 1 }
            upstream = .closed
            context?.close(promise: nil)
        }
    }
}
