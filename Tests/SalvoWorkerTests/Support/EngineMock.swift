import Crypto
import Logging
import NIOCore
import NIOPosix
import SalvoAPNs
import SalvoMockAPNs
import SalvoWorker
import Synchronization

/// What the mock APNs accepted and rejected, in order, from any of its event loops.
final class AcceptedPushes: MockAPNsListener {
    private struct State {
        var accepted: [String] = []
        var rejected: [String: Int] = [:]
    }

    private let state = Mutex(State())

    func pushAccepted(_ push: MockAcceptedPush) {
        let token = push.request.token.hex
        state.withLock { $0.accepted.append(token) }
    }

    func pushRejected(_ push: MockRejectedPush) {
        guard let token = push.request?.token.hex else { return }
        state.withLock { $0.rejected[token, default: 0] += 1 }
    }

    /// Accepted tokens in the order the mock answered them.
    var accepted: [String] { state.withLock { $0.accepted } }
    var acceptedCount: Int { state.withLock { $0.accepted.count } }
    var rejected: [String: Int] { state.withLock { $0.rejected } }

    /// How often each token was accepted.
    var acceptedCounts: [String: Int] {
        state.withLock { state in state.accepted.reduce(into: [:]) { $0[$1, default: 0] += 1 } }
    }
}

/// A mock APNs on 127.0.0.1 port 0 with a listener, and the worker app pointing at it.
struct EngineMock {
    static let bundleID = "com.example.news"
    let server: MockAPNsServer
    let pushes: AcceptedPushes
    let port: Int

    /// Starts a mock (h2c unless `tls` is given); `body` runs with it, and it is shut down on
    /// every path.
    static func with<T>(
        scenario: MockScenario = MockScenario(),
        tls: MockAPNsServer.TLS? = nil,
        tokenKeys: [MockTokenKey] = [],
        additionalRule: (@Sendable (APNsReceivedRequest) -> APNsReason?)? = nil,
        _ body: (EngineMock) async throws -> T
    ) async throws -> T {
        var configuration = MockAPNsServer.Configuration()
        configuration.scenario = scenario
        configuration.tokenKeys = tokenKeys
        configuration.additionalRule = additionalRule
        if let tls { configuration.transport = .tls(tls) }
        var logger = Logger(label: "salvo.mock-apns.test")
        logger.logLevel = .critical
        let pushes = AcceptedPushes()
        let server = try MockAPNsServer(configuration: configuration, listeners: [pushes], logger: logger)
        let port = try await server.start().port
        let mock = EngineMock(server: server, pushes: pushes, port: port)
        do {
            let result = try await body(mock)
            await server.shutdown()
            return result
        } catch {
            await server.shutdown()
            throw error
        }
    }

    /// The worker's app `news` sending to this mock with a fresh provider-token key.
    func app(
        connections: Int = 2, streams: Int = 200, transport: APNsConnection.Transport = .plaintext,
        credential: APNsTokenCredential? = nil
    ) throws -> WorkerApp {
        var pool = APNsConnectionPool.Configuration()
        pool.connectionCount = connections
        pool.maximumStreamsPerConnection = streams
        pool.connection.transport = transport
        pool.connection.requestTimeout = .seconds(10)
        pool.backoff.initial = .milliseconds(20)
        pool.backoff.maximum = .milliseconds(200)
        let credential =
            try credential
            ?? APNsTokenCredential(keyID: "KEY1234567", teamID: "TEAM123456", privateKey: P256.Signing.PrivateKey())
        return WorkerApp(
            bundleID: Self.bundleID, credential: .token(credential),
            endpoints: [.production: .custom(host: "127.0.0.1", port: port, behavesAs: .production)], pool: pool)
    }
}
