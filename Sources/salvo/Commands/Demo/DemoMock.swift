import Logging
import NIOPosix
import NIOSSL
import SalvoAPNs
import SalvoMockAPNs
import SalvoWorker

/// The demo's APNs: the mock over TLS with a certificate authority generated for this run, and
/// provider-token authentication with every JWT verified, so the worker does exactly what it
/// does against Apple (TLS handshake, ALPN h2, signed tokens) with nothing on disk.
struct DemoMock {
    static let bundleID = "com.example.salvo.demo"
    /// HTTP/2 connections of the worker's pool for the app. Default: 2.
    static let connections = 2
    /// Streams in flight per connection (the pool's default is 1,000). Against this in-process
    /// mock a 2 × 1,000 window is only a queue: a per-user push waits behind up to 2,000 campaign
    /// requests (window ÷ throughput, Little's law), which put the priority lane's p99 at
    /// 110–114 ms; at 250 it is 63–71 ms and the campaign still keeps up (the engine's
    /// adaptive window is the lasting fix, for every deployment).
    static let streamsPerConnection = 250

    let server: MockAPNsServer
    let port: Int
    private let material: MockTLSMaterial

    /// Generates the material and starts the mock on 127.0.0.1, a free port; `listeners` hear
    /// every answered notification.
    static func start(listeners: [any MockAPNsListener], logger: Logger) async throws -> DemoMock {
        let material: MockTLSMaterial
        let server: MockAPNsServer
        do {
            material = try MockTLSMaterial.generate(topic: bundleID)
            var configuration = MockAPNsServer.Configuration()
            configuration.transport = .tls(try material.serverTLS(acceptClientCertificates: false))
            configuration.tokenKeys = [material.tokenKey]
            configuration.scenario = DemoScenario.mockScenario
            configuration.broadcastHost = "127.0.0.1"  // Live Activity channels (ChannelsDemo)
            server = try MockAPNsServer(
                configuration: configuration, listeners: listeners,
                eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: logger)
        } catch {
            throw CommandFailure("cannot set up the mock APNs: \(error)")
        }
        let port: Int
        do {
            port = try await server.start().port
        } catch {
            throw CommandFailure("cannot start the mock APNs: \(error)")
        }
        return DemoMock(server: server, port: port, material: material)
    }

    /// The worker's app: the mock as a custom production environment, the run's CA as the only
    /// trust root, and the generated token key as its credential.
    func workerApp() throws -> WorkerApp {
        var pool = APNsConnectionPool.Configuration()
        pool.connectionCount = Self.connections
        pool.maximumStreamsPerConnection = Self.streamsPerConnection
        pool.connection.transport = .tls(
            trustRoots: .certificates(try NIOSSLCertificate.fromPEMBytes(Array(material.caCertificatePEM.utf8))))
        pool.connection.tlsServerName = "localhost"
        return WorkerApp(
            bundleID: Self.bundleID, credential: .token(try material.tokenCredential()),
            endpoints: [.production: .custom(host: "127.0.0.1", port: port, behavesAs: .production)], pool: pool)
    }
}
