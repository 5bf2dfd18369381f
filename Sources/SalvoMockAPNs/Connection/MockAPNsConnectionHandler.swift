import Logging
import NIOCore
import NIOSSL
import SalvoAPNs
import SalvoHTTP2
import Synchronization

/// The application side of one APNs connection, after the server-mode `HTTP2SessionHandler`:
/// judges each request (Apple's rules, authentication, your rule, the scenario), answers it now
/// or after the drawn latency, and applies the connection-level faults.
///
/// Answers go straight to the session handler (same event loop), not through `context.write`:
/// no `NIOAny` box per response, and the session handler flushes once per read burst.
final class MockAPNsConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2ReceivedRequest

    static let shutdownDebugData = ByteBuffer(string: #"{"reason":"Shutdown"}"#)

    let connectionID: Int
    let runtime: MockAPNsRuntime
    let session: HTTP2SessionHandler
    private let resetter: MockConnectionResetHandler
    var connection: MockConnectionStateMachine
    var providerToken = MockProviderTokenStateMachine()
    var authentication: MockAuthentication?
    var validation = MockConnectionValidator()
    var random: MockRandom
    private var scenarioGeneration: Int
    var scenario: MockScenario
    /// Requests delivered and not answered yet (waiting for their latency).
    var waitingStreams = 0
    private var timers: [Scheduled<Void>] = []
    var isOpen = true
    /// Whether a request on this connection carried a valid provider token (token connections
    /// start at one stream until one has been answered).
    var tokenValidated = false

    /// - Parameters:
    ///   - scenario: The scenario (and its generation) the connection starts with; its
    ///     `max_concurrent_streams` is what `session` advertises, unless:
    ///   - startsWithOneStream: `session` advertises one stream until a request with a valid
    ///     provider token has been answered (token mode).
    init(
        runtime: MockAPNsRuntime, session: HTTP2SessionHandler, resetter: MockConnectionResetHandler,
        scenario: (generation: Int, scenario: MockScenario), startsWithOneStream: Bool = false
    ) {
        self.runtime = runtime
        self.session = session
        self.resetter = resetter
        self.connectionID = runtime.nextConnectionID()
        (self.scenarioGeneration, self.scenario) = scenario
        self.connection = MockConnectionStateMachine(
            advertisedMaxConcurrentStreams: scenario.scenario.maxConcurrentStreams,
            startsWithOneStream: startsWithOneStream)
        let connectionID = self.connectionID
        let seed =
            scenario.scenario.seed.map { $0 &+ UInt64(truncatingIfNeeded: connectionID) }
            ?? UInt64.random(in: .min ... .max)
        self.random = MockRandom(seed: seed)
    }

    // MARK: Lifecycle

    func handlerAdded(context: ChannelHandlerContext) {
        self.runtime.counters.connectionsOpened.wrappingAdd(1, ordering: .relaxed)
        let loop = context.eventLoop.assumeIsolated()
        if let seconds = self.scenario.goAway?.everySeconds {
            self.timers.append(
                loop.scheduleTask(in: .nanoseconds(Nanoseconds.from(seconds: seconds))) { self.goAwayNow() })
        }
        if let seconds = self.scenario.connectionReset?.everySeconds {
            self.timers.append(
                loop.scheduleTask(in: .nanoseconds(Nanoseconds.from(seconds: seconds))) { self.resetNow() })
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.closed()
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.closed()
        context.fireChannelInactive()
    }

    private func closed() {
        guard self.isOpen else { return }
        self.isOpen = false
        self.connection.closed()
        for timer in self.timers { timer.cancel() }
        self.timers.removeAll()
        if self.waitingStreams > 0 {
            self.runtime.counters.unanswered.wrappingAdd(self.waitingStreams, ordering: .relaxed)
        }
        self.waitingStreams = 0
        self.runtime.counters.connectionsClosed.wrappingAdd(1, ordering: .relaxed)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // TLS handshake failures, protocol errors: the client learns from the closed connection.
        self.runtime.logger.debug(
            "connection error", metadata: ["connection": "\(self.connectionID)", "error": "\(error)"])
        context.close(promise: nil)
    }

    // MARK: Controls (on the channel's event loop)

    /// Sends GOAWAY (NO_ERROR) unless one was sent already; delivered requests are still answered.
    func goAwayNow(debugData: ByteBuffer = ByteBuffer()) {
        guard self.connection.goAwayRequested() else { return }
        self.submitGoAway(debugData: debugData)
    }

    private func submitGoAway(debugData: ByteBuffer) {
        do {
            try self.session.goAway(errorCode: .noError, debugData: debugData)
            self.runtime.counters.goAwaysSent.wrappingAdd(1, ordering: .relaxed)
        } catch {
            self.runtime.logger.debug(
                "GOAWAY not sent", metadata: ["connection": "\(self.connectionID)", "error": "\(error)"])
        }
    }

    /// Resets the TCP connection: requests waiting for an answer are abandoned.
    func resetNow() {
        guard self.connection.resetRequested() else { return }
        self.runtime.counters.connectionResets.wrappingAdd(1, ordering: .relaxed)
        self.resetter.reset()
    }

    // MARK: Requests

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let received = self.unwrapInboundIn(data)
        self.runtime.counters.streams.wrappingAdd(1, ordering: .relaxed)
        self.waitingStreams += 1
        if self.runtime.scenarios.generation != self.scenarioGeneration {
            (self.scenarioGeneration, self.scenario) = self.runtime.scenarios.load()
        }
        let action = self.connection.streamReceived(
            goAwayEvery: self.scenario.goAway?.everyStreams, resetEvery: self.scenario.connectionReset?.everyStreams)
        switch action {
        case .drop:
            return
        case .resetConnection:
            self.runtime.counters.connectionResets.wrappingAdd(1, ordering: .relaxed)
            self.resetter.reset()
            return
        case .answer, .answerThenGoAway:
            if self.runtime.configuration.validation == .none {
                self.answerFast(received)
            } else {
                self.handle(received, context: context)
            }
            if action == .answerThenGoAway { self.submitGoAway(debugData: ByteBuffer()) }
        }
    }

    /// The load fast path: 200 at once, `apns-id` echoed byte for byte or generated.
    private func answerFast(_ received: HTTP2ReceivedRequest) {
        self.waitingStreams -= 1
        let response: HTTP2Response
        if let apnsID = received.request.headers.firstBytes(name: "apns-id") {
            response = self.runtime.responses.accepted(echoing: apnsID, random: &self.random)
        } else {
            response = self.runtime.responses.accepted(apnsID: APNsID.random(using: &self.random), random: &self.random)
        }
        do {
            try self.session.respond(streamID: received.streamID, response)
            self.runtime.counters.accepted.wrappingAdd(1, ordering: .relaxed)
        } catch {
            self.runtime.counters.unanswered.wrappingAdd(1, ordering: .relaxed)
        }
    }

    private func handle(_ received: HTTP2ReceivedRequest, context: ChannelHandlerContext) {
        if self.authentication == nil { self.resolveAuthentication(context: context) }
        let receivedAt = WallClock.nowMilliseconds()
        let answer = self.judge(received.request, receivedAt: receivedAt)
        let delay = self.scenario.latency.sampleNanoseconds(using: &self.random)
        guard delay > 0 else {
            self.send(answer, streamID: received.streamID, receivedAt: receivedAt)
            return
        }
        context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(delay)) {
            self.send(answer, streamID: received.streamID, receivedAt: receivedAt)
        }
    }
}
