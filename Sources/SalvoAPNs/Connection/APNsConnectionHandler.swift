import Logging
import NIOCore
import NIOTLS
import SalvoHTTP2

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

    let id: APNsConnectionID
    private let session: HTTP2SessionHandler
    private let encoder: APNsRequestEncoder
    private let authorizationSource: APNsAuthorizationSource?
    private let configuration: APNsConnection.Configuration
    private let metrics: APNsPoolMetrics?
    private let logger: Logger
    weak var delegate: (any APNsPoolConnectionDelegate)?

    private var stateMachine = APNsConnection.StateMachine()
    private var context: ChannelHandlerContext?
    private(set) var maxConcurrentStreams = 0
    /// Called once when the connection is ready or its setup failed.
    private var onSetup: ((Result<APNsConnectionHandler, APNsError>) -> Void)?
    /// Why the connection is closing: reported with the close, or as the setup failure.
    private var failure: APNsError?
    private var setupTimer: Scheduled<Void>?
    private var keepaliveTimer: Scheduled<Void>?
    private var drainTimer: Scheduled<Void>?
    private var isFlushScheduled = false

    init(
        id: APNsConnectionID,
        session: HTTP2SessionHandler,
        encoder: APNsRequestEncoder,
        authorizationSource: APNsAuthorizationSource?,
        configuration: APNsConnection.Configuration,
        metrics: APNsPoolMetrics?,
        logger: Logger,
        onSetup: @escaping (Result<APNsConnectionHandler, APNsError>) -> Void
    ) {
        self.id = id
        self.session = session
        self.encoder = encoder
        self.authorizationSource = authorizationSource
        self.configuration = configuration
        self.metrics = metrics
        var logger = logger
        logger[metadataKey: "apns-connection"] = "\(id.rawValue)"
        self.logger = logger
        self.onSetup = onSetup
    }

    /// The channel, once the handler is in a pipeline.
    var channel: (any Channel)? { self.context?.channel }

    // MARK: APNsPoolConnection

    func submit(_ request: APNsRequest, deadline: NIODeadline, completion: @escaping (APNsConnectionResult) -> Void) {
        guard self.stateMachine.acceptsRequests, let context = self.context else {
            completion(.failed(.notSent("\(self.id) does not accept requests (\(self.stateMachine.state))")))
            return
        }
        let authorization: APNsAuthorization?
        if let source = self.authorizationSource {
            do {
                authorization = try source.authorization(self.id)
            } catch {
                completion(.failed(error))
                return
            }
        } else {
            authorization = nil
        }
        let promise = context.eventLoop.makePromise(of: HTTP2Response.self)
        self.session.submit(self.encoder.encode(request, authorization: authorization), deadline: deadline, promise: promise)
        let apnsID = request.apnsID
        promise.futureResult.assumeIsolated().whenComplete { result in
            self.complete(result, sentAPNsID: apnsID, authorization: authorization, completion: completion)
        }
        self.scheduleFlush()
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
        self.setupTimer = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(self.configuration.connectTimeout)) {
            self.setupTimer = nil
            if self.stateMachine.connectTimeoutFired() {
                self.fail(.connectionFailed("no HTTP/2 SETTINGS from the server within \(self.configuration.connectTimeout)"))
            }
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.channelWentAway()
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.channelWentAway()
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
            if case .fail(let reason) = self.stateMachine.tlsHandshakeCompleted(negotiatedProtocol: negotiatedProtocol) {
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
                self.logger.debug("APNs connection ready", metadata: ["max-concurrent-streams": "\(maxConcurrentStreams)"])
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
                    "debug-data": "\(String(buffer: goAway.debugData))",
                ])
            switch self.stateMachine.goAwayReceived() {
            case .none, .sendGoAwayAndNotify:
                break
            case .notifyDraining:
                self.delegate?.connectionDraining(self.id)
            case .fail(let reason):
                self.fail(.connectionFailed("\(reason): \(goAway.errorCode) \(String(buffer: goAway.debugData))"))
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

    private func complete(
        _ result: Result<HTTP2Response, any Error>,
        sentAPNsID: APNsID?,
        authorization: APNsAuthorization?,
        completion: (APNsConnectionResult) -> Void
    ) {
        switch result {
        case .success(let http2Response):
            let response = APNsResponse(http2Response, sentAPNsID: sentAPNsID)
            if response.status == 403, response.reason == .expiredProviderToken, let authorization,
                let source = self.authorizationSource
            {
                completion(.expiredProviderToken(response, source.expired(self.id, authorization)))
            } else {
                completion(.response(response))
            }
        case .failure(let error):
            // A dying channel fails its streams before channelInactive reaches this handler: tell
            // the pool first, so replays go elsewhere.
            if !(self.context?.channel.isActive ?? false) { self.channelWentAway() }
            completion(.failed(Self.apnsError(error)))
        }
    }

    /// One flush per event-loop tick for however many requests were submitted in it (inside a
    /// read burst the session handler flushes at the burst's end anyway).
    private func scheduleFlush() {
        guard !self.isFlushScheduled, let context = self.context else { return }
        self.isFlushScheduled = true
        context.eventLoop.assumeIsolated().execute {
            self.isFlushScheduled = false
            self.session.flush()
        }
    }

    static func apnsError(_ error: any Error) -> APNsError {
        guard let error = error as? HTTP2Error else { return .connectionLost(String(describing: error)) }
        switch error.code {
        case .notSent: return .notSent(error.message)
        case .timeout: return APNsError(code: .timedOut, message: "no answer from APNs before the deadline", underlying: error.message)
        default: return .connectionLost(error.description)
        }
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
            self.reportSetup(.failure(self.failure ?? .connectionFailed("the connection closed before the server's SETTINGS")))
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

extension APNsError {
    static func connectionFailed(_ cause: String) -> APNsError {
        APNsError(code: .connectionFailed, message: "cannot connect to APNs: \(cause)", underlying: cause)
    }

    static func connectionLost(_ cause: String) -> APNsError {
        APNsError(code: .connectionLost, message: "connection to APNs lost before the answer: \(cause)", underlying: cause)
    }
}
