import NIOCore
import SalvoPrimitives

/// Drives one libnghttp2 session in memory mode over a NIO channel, as an HTTP/2 client (the
/// APNs connection) or server (the mock APNs).
///
/// Bytes read from the channel go to nghttp2; what nghttp2 produces goes out as **one**
/// `ByteBuffer` per flush: at the end of each read burst (`channelReadComplete`), on an explicit
/// `flush()`, or when a timer or control frame needs it. nghttp2's callbacks only record state;
/// promises, pipeline events and delivered requests are acted on after nghttp2 returns.
///
/// Client use, from code on the channel's event loop holding the handler (a connection or pool):
/// ```
/// handler.submit(request, deadline: .now() + .seconds(10), promise: promise)
/// handler.flush()   // or let the current read burst's channelReadComplete flush
/// ```
/// or, allocation-free, `handler.submit(request, deadline: d, tag: 42)` with the answer going to
/// `responseDelegate` (an `HTTP2ResponseDelegate`).
/// or pipeline style: `channel.writeAndFlush(HTTP2Command.request(request, deadline: nil, response: promise))`.
/// Server use: the next handler receives `HTTP2ReceivedRequest`s and writes
/// `HTTP2Command.respond(streamID:_:)` back, in any order, at any time.
///
/// Events (`HTTP2Event`) travel as user inbound events. Every method must be called on the
/// channel's event loop.
public final class HTTP2SessionHandler: ChannelDuplexHandler {
    public typealias InboundIn = ByteBuffer
    public typealias InboundOut = HTTP2ReceivedRequest
    public typealias OutboundIn = HTTP2Command
    public typealias OutboundOut = ByteBuffer

    public enum Mode: Sendable, Equatable {
        case client
        case server
    }

    public let mode: Mode
    public let configuration: Configuration

    var session: NGHTTP2Session?
    var context: ChannelHandlerContext?
    var stateMachine: StateMachine
    var clientStreams = SlotTable<HTTP2ClientStream>()
    var serverStreams = SlotTable<HTTP2ServerStream>()
    /// Server: streams the peer opened over the connection's life.
    public internal(set) var totalStreamCount = 0

    // Work recorded inside nghttp2 callbacks, acted on after it returns.
    var pendingEvents = CircularBuffer<HTTP2Event>()
    /// Every answer in order; the ones that are not bare wait in `pendingCompletions`.
    var pendingAnswers = CircularBuffer<HTTP2PendingAnswer>()
    var pendingCompletions = CircularBuffer<HTTP2PendingCompletion>()
    var pendingRequests = CircularBuffer<HTTP2ReceivedRequest>()
    private var isDeliveringPending = false

    /// Between channelRead and channelReadComplete: flushes wait for the burst's end.
    private var inReadBurst = false
    /// A flush is queued for the end of this event-loop tick.
    private var flushScheduled = false

    var timeoutTask: Scheduled<Void>?
    var timeoutDeadline: NIODeadline?
    var outstandingPings: [UInt64: NIODeadline] = [:]
    var nextPingData: UInt64 = 1
    public internal(set) var lastGoAwayReceived: HTTP2GoAway?
    /// Receives the answers to requests submitted with a tag (weak: the connection owning this
    /// handler usually is the delegate).
    public weak var responseDelegate: (any HTTP2ResponseDelegate)?

    public init(mode: Mode, configuration: Configuration = Configuration()) {
        self.mode = mode
        self.configuration = configuration
        self.stateMachine = StateMachine(assumedPeerMaxConcurrentStreams: configuration.assumedPeerMaxConcurrentStreams)
    }

    // MARK: Facts for the layer above

    /// Client: the peer's SETTINGS_MAX_CONCURRENT_STREAMS and the requests open now.
    public var streamCredit: HTTP2StreamCredit { self.stateMachine.credit }

    /// Streams open now: requests in flight (client) or peer streams not yet closed (server).
    public var openStreamCount: Int {
        self.mode == .client ? self.stateMachine.credit.openStreams : self.serverStreams.count
    }

    /// The peer's SETTINGS in force (before its first SETTINGS: nghttp2's assumptions).
    public var remoteSettings: HTTP2RemoteSettings? { self.session?.remoteSettings }

    // MARK: Lifecycle

    public func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        do {
            try self.configuration.validate()
            self.session = try NGHTTP2Session(options: self.sessionOptions(), delegate: self)
        } catch {
            context.fireErrorCaught(error)
            context.close(promise: nil)
            return
        }
        if context.channel.isActive {
            self.stateMachine.channelActive()
            self.flushSession()
        }
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        self.failAllStreams()
        self.deliverPending()
        self.timeoutTask?.cancel()
        self.timeoutTask = nil
        self.session = nil
        self.context = nil
    }

    public func channelActive(context: ChannelHandlerContext) {
        self.stateMachine.channelActive()
        self.flushSession()
        context.fireChannelActive()
    }

    public func channelInactive(context: ChannelHandlerContext) {
        self.stateMachine.channelInactive()
        self.failAllStreams()
        self.serverStreams.removeAll()
        self.timeoutTask?.cancel()
        self.timeoutTask = nil
        self.deliverPending()
        context.fireChannelInactive()
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let session = self.session else { return }
        self.inReadBurst = true
        do {
            try session.receive(self.unwrapInboundIn(data))
        } catch {
            self.inReadBurst = false
            self.flushSession()  // nghttp2 may have queued a GOAWAY explaining the error
            self.deliverPending()
            context.fireErrorCaught(error)
            context.close(promise: nil)
            return
        }
        self.deliverPending()
    }

    public func channelReadComplete(context: ChannelHandlerContext) {
        self.inReadBurst = false
        self.flushSession()
        context.fireChannelReadComplete()
    }

    public func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { self.flushSession() }
        context.fireChannelWritabilityChanged()
    }

    public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        do {
            switch self.unwrapOutboundIn(data) {
            case .request(let request, let deadline, let response):
                self.submit(request, deadline: deadline, promise: response)
            case .respond(let streamID, let response):
                try self.respond(streamID: streamID, response)
            case .resetStream(let streamID, let errorCode):
                try self.resetStream(streamID: streamID, errorCode: errorCode)
            case .setMaxConcurrentStreams(let value):
                try self.setMaxConcurrentStreams(value)
            case .goAway(let errorCode, let debugData):
                try self.goAway(errorCode: errorCode, debugData: debugData)
            case .ping(let data):
                try self.ping(data: data)
            }
            promise?.succeed()
        } catch {
            promise?.fail(error)
        }
    }

    public func flush(context: ChannelHandlerContext) {
        self.flush()
    }

    // MARK: Flushing

    /// Writes what nghttp2 has queued now, unless a read burst is in progress (its end
    /// flushes). Call it after submitting a batch; without it the batch goes out at the end of
    /// the current event-loop tick.
    public func flush() {
        guard !self.inReadBurst else { return }
        self.flushSession()
    }

    /// Makes sure queued frames go out without the caller flushing: at the end of the read
    /// burst, or in one task at the end of this event-loop tick, however many submissions
    /// came before it (one closure per batch, not per request).
    func scheduleFlush() {
        guard !self.inReadBurst, !self.flushScheduled, let context = self.context else { return }
        self.flushScheduled = true
        context.eventLoop.assumeIsolated().execute { [self] in
            self.flushScheduled = false
            self.flushSession()
        }
    }

    /// Drains nghttp2's output into as few buffers as possible (normally one), writes them with
    /// one flush, and stops while the channel is not writable (nghttp2 keeps the rest).
    func flushSession() {
        guard let session = self.session, let context = self.context, context.channel.isActive else { return }
        var wrote = false
        var more = true
        do {
            // A chunk that did not fit in the last buffer starts the next one.
            var next: ByteBuffer?
            while more && context.channel.isWritable {
                var buffer = next
                next = nil
                more = try session.send(
                    into: &buffer, overflow: &next, allocator: context.channel.allocator,
                    limit: self.configuration.maxWriteSize)
                guard let buffer else { break }
                context.write(self.wrapOutboundOut(buffer), promise: nil)
                wrote = true
            }
            // Taken from nghttp2 already: it goes out even while the channel is not writable.
            if let next {
                context.write(self.wrapOutboundOut(next), promise: nil)
                wrote = true
            }
        } catch {
            if wrote { context.flush() }
            context.fireErrorCaught(error)
            context.close(promise: nil)
            return
        }
        if wrote { context.flush() }
        self.deliverPending()
        if !session.isAlive { context.close(promise: nil) }
    }

    // MARK: Acting on what nghttp2 callbacks recorded

    /// Fires buffered events, completes buffered promises and delivers buffered requests. Safe
    /// against re-entrance: callbacks run here may submit, respond or close.
    func deliverPending() {
        guard !self.isDeliveringPending else { return }
        self.isDeliveringPending = true
        defer { self.isDeliveringPending = false }
        // Ring buffers consumed with popFirst: each item is moved out and the storage kept,
        // and anything appended by the code run here is delivered in the same loop.
        while !self.pendingEvents.isEmpty || !self.pendingAnswers.isEmpty || !self.pendingRequests.isEmpty {
            while let event = self.pendingEvents.popFirst() {
                self.context?.fireUserInboundEventTriggered(event)
            }
            // One load of the weak delegate per batch, unwrapped once (hot-path rule 2,
            // docs/performance-notes.md: ~130 instructions per answer loaded per call).
            if let delegate = self.pendingAnswers.isEmpty ? nil : self.responseDelegate {
                while let answer = self.pendingAnswers.popFirst() {
                    if answer.isBare {
                        delegate.http2Response(status: answer.status, tag: answer.tag)
                    } else if let completion = self.pendingCompletions.popFirst() {
                        completion.complete(delegate: delegate)
                    }
                }
            } else {
                // No one to tell about tagged answers; promises are still completed.
                while let answer = self.pendingAnswers.popFirst() {
                    if !answer.isBare, let completion = self.pendingCompletions.popFirst() {
                        completion.complete(delegate: nil)
                    }
                }
            }
            while let request = self.pendingRequests.popFirst() {
                self.context?.fireChannelRead(self.wrapInboundOut(request))
            }
        }
    }

    private func sessionOptions() -> NGHTTP2Session.Options {
        // SETTINGS_NO_RFC7540_PRIORITIES (RFC 9218): no request here has a priority, so nghttp2
        // schedules streams without maintaining the RFC 7540 dependency tree on every stream
        // opened and closed. Peers that do not know the setting ignore it.
        var settings: [(id: NGHTTP2SettingsID, value: UInt32)] = [
            (.initialWindowSize, UInt32(self.configuration.initialStreamWindowSize)),
            (.noRFC7540Priorities, 1),
            (.maxHeaderListSize, UInt32(self.configuration.maxHeaderListSize)),
        ]
        switch self.mode {
        case .client:
            settings.append((.enablePush, 0))
        case .server:
            settings.append((.maxConcurrentStreams, UInt32(self.configuration.maxConcurrentStreams)))
        }
        return NGHTTP2Session.Options(
            role: self.mode == .client ? .client : .server,
            assumedPeerMaxConcurrentStreams: self.configuration.assumedPeerMaxConcurrentStreams,
            settings: settings,
            connectionWindowSize: self.configuration.connectionWindowSize,
            keptHeaderNames: self.mode == .client ? self.configuration.keptResponseHeaders : nil,
            unindexedHeaderNames: self.configuration.unindexedHeaders,
            maxHeaderListSize: self.configuration.maxHeaderListSize
        )
    }
}

@available(*, unavailable)
extension HTTP2SessionHandler: Sendable {}
