import NIOCore
import SalvoHTTP2
import Synchronization

/// The connection of one (credential, endpoint) for channel management or broadcasts: opened on
/// first use, shared by concurrent requests (HTTP/2 streams), opened again on the next request
/// once it closed. One connection is enough for these endpoints' rates; the token provider sees
/// it like any other connection (its own id, `connectionClosed` when it goes).
final class APNsChannelPool: Sendable {
    private enum State {
        case idle
        case connecting(EventLoopFuture<APNsChannelConnection>)
        case ready(APNsChannelConnection)
        case shutDown
    }

    let endpoint: APNsEnvironment
    private let transport: APNsChannelConnection.Transport
    private let configuration: APNsConnection.Configuration
    private let eventLoop: any EventLoop
    let authorizationSource: APNsAuthorizationSource?
    private let state = Mutex<State>(.idle)

    init(
        endpoint: APNsEnvironment, credential: APNsCredential, configuration: APNsConnection.Configuration,
        eventLoop: any EventLoop, authorizationSource: APNsAuthorizationSource?
    ) throws(APNsError) {
        try configuration.validate()
        self.endpoint = endpoint
        self.transport = try APNsChannelConnection.transport(
            for: credential, endpoint: endpoint, configuration: configuration)
        self.configuration = configuration
        self.eventLoop = eventLoop
        self.authorizationSource = authorizationSource
    }

    var authority: String { self.transport.authority }
    var scheme: String { self.transport.scheme }

    /// The open connection, or a new one.
    func connection() async throws(APNsError) -> APNsChannelConnection {
        let future: EventLoopFuture<APNsChannelConnection> = try self.state.withLock { state throws(APNsError) in
            switch state {
            case .shutDown:
                throw APNsError.notSent("the channel client is shut down")
            case .ready(let connection) where connection.isActive:
                return self.eventLoop.makeSucceededFuture(connection)
            case .connecting(let future):
                return future
            case .idle, .ready:
                let future = APNsChannelConnection.connect(
                    to: self.endpoint, transport: self.transport, configuration: self.configuration,
                    eventLoop: self.eventLoop)
                state = .connecting(future)
                return future
            }
        }
        do {
            let connection = try await future.get()
            self.state.withLock { state in
                if case .connecting = state { state = .ready(connection) }
            }
            let source = self.authorizationSource
            connection.channel.closeFuture.whenComplete { _ in source?.connectionClosed(connection.id) }
            return connection
        } catch {
            self.state.withLock { state in
                if case .connecting = state { state = .idle }
            }
            throw APNsError.connectionFailed("\(self.endpoint.host):\(self.endpoint.port): \(error)")
        }
    }

    /// Sends one request and waits for the answer; transport failures are thrown as the device
    /// pools classify them (`notSent`, `timedOut`, `connectionLost`). A connection that did not
    /// send the request (GOAWAY received, closing) is let go, so the next request opens another.
    func send(_ request: HTTP2Request, on connection: APNsChannelConnection) async throws(APNsError) -> HTTP2Response {
        let failure: APNsError
        do {
            return try await connection.send(request, timeout: TimeAmount(self.configuration.requestTimeout)).get()
        } catch let error as HTTP2Error {
            failure = APNsConnectionHandler.apnsError(error)
        } catch {
            failure = APNsError.connectionLost("\(error)")
        }
        if failure.code == .notSent || failure.code == .connectionLost { self.discard(connection) }
        throw failure
    }

    /// Stops handing `connection` out and closes it once its other requests are answered
    /// (HTTP/2 GOAWAY semantics on our side: closing now would fail them).
    private func discard(_ connection: APNsChannelConnection) {
        let discarded: Bool = self.state.withLock { state in
            guard case .ready(let current) = state, current === connection else { return false }
            state = .idle
            return true
        }
        if discarded {
            // Requests still in flight on it finish within the request timeout; then it goes.
            let channel = connection.channel
            channel.eventLoop.scheduleTask(in: TimeAmount(self.configuration.requestTimeout)) {
                channel.close(promise: nil)
            }
        }
    }

    func shutdown() async {
        let connection: APNsChannelConnection? = self.state.withLock { state in
            defer { state = .shutDown }
            if case .ready(let connection) = state { return connection }
            return nil
        }
        try? await connection?.close().get()
    }
}
