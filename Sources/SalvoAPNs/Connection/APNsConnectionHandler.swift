import Logging
import Metrics
import NIOCore
import NIOTLS
import SalvoHTTP2
import SalvoPrimitives

/// The event-loop-confined core of one APNs connection. It sits after the
/// `HTTP2SessionHandler`, turns `HTTP2Event`s and TLS events into ``APNsConnection/StateMachine``
/// inputs, runs the setup deadline and the PING keepalive, and submits requests straight into
/// the session handler (no pipeline write per request).
///
/// Every request's outcome reaches its completion exactly once: nghttp2's handler completes every
/// promise on every path (response, reset, GOAWAY, close, deadline), and requests refused here
/// are failed at once.
final class APNsConnectionHandler: ChannelInboundHandler, APNsPoolConnection {
    /// Client mode delivers no inbound messages; events arrive as user events.
    typealias InboundIn = HTTP2ReceivedRequest

    /// What the connection remembers of a request until its response: where the result goes,
    /// and what reading the response needs. Its slot is the request's tag in the session.
    private struct InFlight {
        enum Completion {
            /// The pool's request, reported through the delegate with the pool's tag.
            case tag(UInt64)
            /// A direct caller (`APNsConnection.send`).
            case closure((APNsConnectionResult) -> Void)
        }

        var completion: Completion
        var sentAPNsID: APNsID?
        var tokenGeneration: UInt64?
    }

    let id: APNsConnectionID
    private let session: HTTP2SessionHandler
    private var encoder: APNsRequestEncoder
    private let authorizationSource: APNsAuthorizationSource?
    private let configuration: APNsConnection.Configuration
    private let metrics: APNsPoolMetrics?
    private let logger: Logger
    /// The pool. Held strongly until the channel is gone and every request was reported, which
    /// breaks the cycle (hot-path rule 2, docs/performance-notes.md).
    var delegate: (any APNsPoolConnectionDelegate)?

    /// Set as the session's `responseDelegate` (see ``APNsResponseRelay`` for why not `self`).
    private(set) var responseRelay: APNsResponseRelay!
    private var stateMachine = APNsConnection.StateMachine()
    private var inFlight = SlotTable<InFlight>()
    private var context: ChannelHandlerContext?
    private(set) var maxConcurrentStreams = 0
    /// Called once when the connection is ready or its setup failed.
    private var onSetup: ((Result<APNsConnectionHandler, APNsError>) -> Void)?
    /// Why the connection is closing: reported with the close, or as the setup failure.
    private var failure: APNsError?
    private var setupTimer: Scheduled<Void>?
    private var keepaliveTimer: Scheduled<Void>?
    private var drainTimer: Scheduled<Void>?
    /// The provider token last handed to this connection (its header value and generation),
    /// reused for `authorizationReuse`: the provider's bookkeeping (a lock, a clock read, a table
    /// lookup) then runs once a second per connection instead of per request. An
    /// ExpiredProviderToken answer drops it at once.
    private var authorization: (headerValue: [UInt8], generation: UInt64, until: NIODeadline)?
    /// `until` is compared with request deadlines, which all lie one request timeout ahead.
    private static let authorizationReuse = TimeAmount.seconds(1)
    /// Whether responses carry `apns-unique-id` (only Apple's sandbox sends it).
    private let readsUniqueID: Bool

    init(
        id: APNsConnectionID,
        session: HTTP2SessionHandler,
        encoder: APNsRequestEncoder,
        authorizationSource: APNsAuthorizationSource?,
        configuration: APNsConnection.Configuration,
        metrics: APNsPoolMetrics?,
        readsUniqueID: Bool,
        logger: Logger,
        onSetup: @escaping (Result<APNsConnectionHandler, APNsError>) -> Void
    ) {
        self.id = id
        self.readsUniqueID = readsUniqueID
        self.session = session
        self.encoder = encoder
        self.authorizationSource = authorizationSource
        self.configuration = configuration
        self.metrics = metrics
        var logger = logger
        logger[metadataKey: "apns-connection"] = "\(id.rawValue)"
        self.logger = logger
        self.onSetup = onSetup
        self.responseRelay = APNsResponseRelay(handler: self)
    }

    /// The channel, once the handler is in a pipeline.
    var channel: (any Channel)? { self.context?.channel }

    // MARK: APNsPoolConnection

    func submit(_ request: UnsafePointer<APNsRequest>, deadline: NIODeadline, tag: UInt64) {
        self.submit(request, deadline: deadline, completion: .tag(tag))
    }

    /// For a direct caller: `completion` runs once, on the event loop.
    func submit(_ request: APNsRequest, deadline: NIODeadline, completion: @escaping (APNsConnectionResult) -> Void) {
        withUnsafePointer(to: request) { self.submit($0, deadline: deadline, completion: .closure(completion)) }
    }

    /// `request` is read in place and only during the call (nghttp2 copies what it sends).
    private func submit(_ request: UnsafePointer<APNsRequest>, deadline: NIODeadline, completion: InFlight.Completion) {
        guard self.stateMachine.acceptsRequests, self.context != nil else {
            self.complete(
                completion, .failed(.notSent("\(self.id) does not accept requests (\(self.stateMachine.state))")))
            return
        }
        do {
            try self.refreshAuthorization(deadline: deadline)
        } catch {
            self.complete(completion, .failed(error))
            return
        }
        let slot = self.inFlight.insert(
            InFlight(
                completion: completion, sentAPNsID: request.pointee.apnsID,
                tokenGeneration: self.authorization?.generation))
        self.encoder.prepare(request, token: self.authorization?.headerValue)
        // The session handler flushes at the end of the read burst or of this event-loop tick.
        self.session.submit(
            headers: self.encoder.headers, shared: self.encoder.sharedBlock, body: request.pointee.payload,
            deadline: deadline, tag: UInt64(slot))
    }

    func retire() {
        // Every request in flight has its deadline within the request timeout: a connection
        // still open after that (a peer that never closes) is closed.
        if self.drainTimer == nil, let context = self.context {
            self.drainTimer = context.eventLoop.assumeIsolated().scheduleTask(
                in: TimeAmount(self.configuration.requestTimeout) + .seconds(1)
            ) {
                self.close()
            }
        }
        switch self.stateMachine.retire() {
        case .none, .notifyDraining:
            break
        case .sendGoAwayAndNotify:
            // Our GOAWAY only promises we open nothing new; nghttp2 closes the connection once
            // the streams in flight have ended.
            do {
                try self.session.goAway(errorCode: .noError)
            } catch {
                self.fail(.connectionLost("cannot send GOAWAY: \(error.message)"))
            }
        case .fail(let reason):
            self.fail(.connectionFailed(reason))
        }
    }

    func close() {
        self.context?.close(promise: nil)
    }

    // MARK: ChannelHandler

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        self.setupTimer = context.eventLoop.assumeIsolated().scheduleTask(
            in: TimeAmount(self.configuration.connectTimeout)
        ) {
            self.setupTimer = nil
            if self.stateMachine.connectTimeoutFired() {
                self.fail(
                    .connectionFailed("no HTTP/2 SETTINGS from the server within \(self.configuration.connectTimeout)"))
            }
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.channelWentAway()
        // The session handler fails every stream it knows; anything left never reached it.
        for request in self.inFlight.removeAll() {
            self.complete(request.completion, .failed(.notSent("\(self.id) left the pipeline")))
        }
        self.context = nil
        self.delegate = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.channelWentAway()
        // Not from channelWentAway: called while a completion is delivered, it would drop the
        // pool before that completion reaches it.
        self.releaseDelegateIfDone()
        context.fireChannelInactive()
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        self.stateMachine.trafficSeen()
        context.fireChannelReadComplete()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let ready = self.stateMachine.acceptsRequests
        self.stateMachine.errorCaught()
        let text = String(describing: error)
        self.fail(ready ? .connectionLost(text) : .connectionFailed(text))
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case let event as HTTP2Event:
            self.handle(event)
        case let event as TLSUserEvent:
            guard case .handshakeCompleted(let negotiatedProtocol) = event else { break }
            if case .fail(let reason) = self.stateMachine.tlsHandshakeCompleted(negotiatedProtocol: negotiatedProtocol)
            {
                self.fail(.connectionFailed(reason))
            }
        default:
            context.fireUserInboundEventTriggered(event)
        }
    }

    /// Called when bootstrap could not even open the socket (the pipeline may never go active).
    func connectFailed(_ error: any Error) {
        self.recordFailure(.connectionFailed(String(describing: error)))
        self.reportSetup(.failure(self.failure!))
    }

    // MARK: Events

    private func handle(_ event: HTTP2Event) {
        switch event {
        case .remoteSettingsChanged(let settings):
            switch self.stateMachine.settingsReceived(maxConcurrentStreams: settings.maxConcurrentStreams) {
            case .none:
                break
            case .becameReady(let maxConcurrentStreams):
                self.maxConcurrentStreams = maxConcurrentStreams
                self.setupTimer?.cancel()
                self.setupTimer = nil
                self.scheduleKeepalive(after: self.configuration.keepaliveInterval)
                self.logger.debug(
                    "APNs connection ready", metadata: ["max-concurrent-streams": "\(maxConcurrentStreams)"])
                self.reportSetup(.success(self))
            case .maxConcurrentStreamsChanged(let value):
                self.maxConcurrentStreams = value
                self.delegate?.connection(self.id, maxConcurrentStreamsChanged: value)
            }
        case .goAwayReceived(let goAway):
            self.metrics?.goAways.increment()
            self.logger.info(
                "APNs sent GOAWAY",
                metadata: [
                    "error-code": "\(goAway.errorCode)", "last-stream-id": "\(goAway.lastStreamID)",
                    "debug-data": "\(goAway.debugText())",
                ])
            switch self.stateMachine.goAwayReceived() {
            case .none, .sendGoAwayAndNotify:
                break
            case .notifyDraining:
                self.delegate?.connectionDraining(self.id)
            case .fail(let reason):
                self.fail(.connectionFailed("\(reason): \(goAway.errorCode) \(goAway.debugText())"))
            }
        case .pingAcknowledged(let ack):
            self.metrics?.pingRoundTrip.recordNanoseconds(ack.roundTripTime.nanoseconds)
            if self.stateMachine.pingAcknowledged() == .scheduleCheck {
                self.scheduleKeepalive(after: self.configuration.keepaliveInterval)
            }
        case .streamCreditAvailable, .localSettingsAcknowledged:
            break
        }
    }

    // MARK: Requests

    /// A status without a body or a kept header (APNs's 200 in production): no reason to read,
    /// so never an expired provider token; the `apns-id` is the one sent.
    func http2Response(status: Int, tag: UInt64) {
        guard let request = self.inFlight.remove(Int(tag)) else { return }
        let response = APNsResponse(status: status, apnsID: request.sentAPNsID, apnsUniqueID: nil)
        self.complete(request.completion, .response(response))
    }

    func http2Response(_ result: Result<HTTP2Response, HTTP2Error>, tag: UInt64) {
        guard let request = self.inFlight.remove(Int(tag)) else { return }
        switch result {
        case .success(let http2Response):
            let response = APNsResponse(
                http2Response, sentAPNsID: request.sentAPNsID, readsUniqueID: self.readsUniqueID)
            if response.status == 403, response.reason == .expiredProviderToken,
                let generation = request.tokenGeneration,
                let source = self.authorizationSource
            {
                self.authorization = nil
                self.complete(request.completion, .expiredProviderToken(response, source.expired(self.id, generation)))
            } else {
                self.complete(request.completion, .response(response))
            }
        case .failure(let error):
            // A dying channel fails its streams before channelInactive reaches this handler: tell
            // the pool first, so replays go elsewhere.
            if !(self.context?.channel.isActive ?? false) { self.channelWentAway() }
            self.complete(request.completion, .failed(Self.apnsError(error)))
        }
    }

    private func complete(_ completion: InFlight.Completion, _ result: APNsConnectionResult) {
        switch completion {
        case .tag(let tag): self.delegate?.connection(self.id, completed: tag, with: result)
        case .closure(let closure): closure(result)
        }
        self.releaseDelegateIfDone()
    }

    /// The pool is released once the channel is gone and every request was reported to it.
    private func releaseDelegateIfDone() {
        if self.stateMachine.state == .closed, self.inFlight.isEmpty { self.delegate = nil }
    }

    /// Asks the provider for the token when the cached one is older than `authorizationReuse`.
    /// Time is read from the request's deadline (now + the request timeout) rather than the clock:
    /// one clock read less per request.
    private func refreshAuthorization(deadline: NIODeadline) throws(APNsError) {
        guard let source = self.authorizationSource else { return }
        if let cached = self.authorization, deadline < cached.until { return }
        let token = try source.authorization(self.id)
        self.authorization = (token.headerValue, token.generation, deadline + Self.authorizationReuse)
    }

    // MARK: Keepalive

    private func scheduleKeepalive(after delay: Duration) {
        guard let context = self.context else { return }
        self.keepaliveTimer?.cancel()
        self.keepaliveTimer = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(delay)) {
            self.keepaliveTimer = nil
            self.keepaliveFired()
        }
    }

    private func keepaliveFired() {
        switch self.stateMachine.keepaliveTimerFired() {
        case .none:
            break
        case .scheduleCheck:
            self.scheduleKeepalive(after: self.configuration.keepaliveInterval)
        case .sendPing:
            do {
                try self.session.ping()
                self.scheduleKeepalive(after: self.configuration.keepaliveTimeout)
            } catch {
                self.fail(.connectionLost("cannot send PING: \(error.message)"))
            }
        case .close(let reason):
            self.logger.warning("closing APNs connection", metadata: ["reason": "\(reason)"])
            self.fail(.connectionLost(reason))
        }
    }

    // MARK: Closing

    private func recordFailure(_ error: APNsError) {
        if self.failure == nil { self.failure = error }
    }

    private func fail(_ error: APNsError) {
        self.recordFailure(error)
        self.context?.close(promise: nil)
    }

    /// Idempotent: the channel is gone; report it once, as a failed setup or a closed connection.
    private func channelWentAway() {
        self.setupTimer?.cancel()
        self.setupTimer = nil
        self.keepaliveTimer?.cancel()
        self.keepaliveTimer = nil
        self.drainTimer?.cancel()
        self.drainTimer = nil
        switch self.stateMachine.channelInactive() {
        case .none:
            break
        case .failConnect:
            self.reportSetup(
                .failure(self.failure ?? .connectionFailed("the connection closed before the server's SETTINGS")))
        case .notifyClosed:
            self.logger.debug("APNs connection closed", metadata: ["error": "\(self.failure.map(\.message) ?? "none")"])
            self.authorizationSource?.connectionClosed(self.id)
            self.delegate?.connectionClosed(self.id, error: self.failure)
        }
    }

    private func reportSetup(_ result: Result<APNsConnectionHandler, APNsError>) {
        guard let onSetup = self.onSetup else { return }
        self.onSetup = nil
        onSetup(result)
    }
}
