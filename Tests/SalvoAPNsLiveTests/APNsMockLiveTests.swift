import Crypto
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import SalvoMockAPNs
import Testing

@testable import SalvoAPNs

/// The pool against the project's mock APNs over loopback: Apple's validation, JWT verification,
/// certificate checks and the mock's fault controls.
@Suite("APNsConnectionPool against the mock APNs")
struct APNsMockLiveTests {
    /// Runs `body` with a started mock, shut down on every path.
    private func withMock<T>(
        group: any EventLoopGroup = Live.group,
        _ configure: (inout MockAPNsServer.Configuration) throws -> Void,
        _ body: (MockAPNsServer, Int) async throws -> T
    ) async throws -> T {
        var configuration = MockAPNsServer.Configuration()
        try configure(&configuration)
        var logger = Logger(label: "salvo.mock-apns.test")
        logger.logLevel = .error
        let server = try MockAPNsServer(configuration: configuration, eventLoopGroup: group, logger: logger)
        let port = try await server.start().port
        do {
            let result = try await body(server, port)
            await server.shutdown()
            return result
        } catch {
            await server.shutdown()
            throw error
        }
    }

    private func request(_ number: Int, topic: String) -> APNsRequest {
        let hex = String(number, radix: 16)
        return try! APNsRequest(
            token: DeviceToken(hex: String(repeating: "0", count: 64 - hex.count) + hex), topic: APNsTopic(topic),
            pushType: .alert, apnsID: .random(), payload: ByteBuffer(string: #"{"aps":{"alert":"mock"}}"#))
    }

    /// Sends `count` requests in batches; `midway` runs once about a third of the outcomes arrived.
    private func send(
        _ count: Int, through pool: APNsConnectionPool, topic: String, midway: (() async -> Void)? = nil
    ) async throws -> [Int: APNsOutcome] {
        let tally = OutcomeTally()
        let sender = Task {
            for start in stride(from: 0, to: count, by: 100) {
                let end = min(start + 100, count)
                await pool.send((start..<end).map { self.request($0, topic: topic) }) { tally.record(start + $0, $1) }
            }
        }
        if let midway {
            _ = try await tally.waitForAll(count / 3)
            await midway()
        }
        await sender.value
        return try await tally.waitForAll(count)
    }

    @Test(
        "10,000 requests over 2 TLS connections with token authentication: the mock verifies the JWT, and each answer is the one its token's fate predicts"
    )
    func tokenAuthentication() async throws {
        let material = try MockTLSMaterial.generate()
        let fate = MockTokenFate(unregistered: 0.1, badDeviceToken: 0.05)
        try await self.withMock({
            $0.transport = .tls(try material.serverTLS(acceptClientCertificates: false))
            $0.tokenKeys = [material.tokenKey]
            $0.scenario.tokens = fate
        }) { server, port in
            let pool = try APNsConnectionPool(
                credential: .token(try material.tokenCredential()), environment: Live.environment(port: port),
                configuration: Live.poolConfiguration(
                    transport: .tls(
                        trustRoots: .certificates(
                            try NIOSSLCertificate.fromPEMBytes(Array(material.caCertificatePEM.utf8))))),
                eventLoop: Live.group.next())
            try await Live.withPool(pool) { pool in
                let outcomes = try await self.send(10_000, through: pool, topic: material.topic)
                #expect(outcomes.count == 10_000)
                var mismatches = 0
                for (number, outcome) in outcomes {
                    switch fate.outcome(for: self.request(number, topic: material.topic).token) {
                    case .valid: if !outcome.isAccepted { mismatches += 1 }
                    case .unregistered:
                        if outcome.rejection?.reason != .unregistered || outcome.rejection?.timestampMilliseconds == nil
                        {
                            mismatches += 1
                        }
                    case .badDeviceToken: if outcome.rejection?.reason != .badDeviceToken { mismatches += 1 }
                    }
                }
                #expect(mismatches == 0)
                #expect(server.stats().accepted + server.stats().rejectedTotal == 10_000)
            }
        }
    }

    @Test("a token signed by a key the mock does not know is refused with InvalidProviderToken")
    func unknownKey() async throws {
        let material = try MockTLSMaterial.generate()
        try await self.withMock({ $0.tokenKeys = [material.tokenKey] }) { _, port in
            let stranger = try APNsTokenCredential(
                keyID: material.tokenKeyID, teamID: material.tokenTeamID, privateKey: .init())
            let pool = try APNsConnectionPool(
                credential: .token(stranger), environment: Live.environment(port: port),
                configuration: Live.poolConfiguration(transport: .plaintext, connections: 1),
                eventLoop: Live.group.next())
            try await Live.withPool(pool) { pool in
                let outcome = await pool.send(self.request(1, topic: material.topic))
                #expect(outcome.rejection?.status == 403)
                #expect(outcome.rejection?.reason == .invalidProviderToken)
            }
        }
    }

    @Test("certificate authentication: the mock checks the client certificate and its topic")
    func certificateAuthentication() async throws {
        let material = try MockTLSMaterial.generate()
        try await self.withMock({ $0.transport = .tls(try material.serverTLS(acceptClientCertificates: true)) }) {
            _, port in
            let credential = try APNsCertificateCredential(
                certificateChain: NIOSSLCertificate.fromPEMBytes(Array(material.clientCertificatePEM.utf8)),
                privateKey: NIOSSLPrivateKey(bytes: Array(material.clientPrivateKeyPEM.utf8), format: .pem))
            #expect(credential.bundleID == material.topic)
            let pool = try APNsConnectionPool(
                credential: .certificate(credential), environment: Live.environment(port: port),
                configuration: Live.poolConfiguration(
                    transport: .tls(
                        trustRoots: .certificates(
                            try NIOSSLCertificate.fromPEMBytes(Array(material.caCertificatePEM.utf8)))),
                    connections: 1),
                eventLoop: Live.group.next())
            try await Live.withPool(pool) { pool in
                #expect(await pool.send(self.request(1, topic: material.topic)).isAccepted)
                let foreign = await pool.send(self.request(2, topic: "com.example.other"))
                #expect(foreign.rejection?.reason == .topicDisallowed || foreign.rejection?.reason == .badCertificate)
            }
        }
    }

    @Test("the mock lowers MAX_CONCURRENT_STREAMS to 1 after rejections: every notification still gets its answer")
    func streamLimitDrops() async throws {
        try await self.withMock({
            $0.scenario.tokens = MockTokenFate(unregistered: 0.2)
            $0.scenario.dropStreamsAfterRejection = true
        }) { server, port in
            let pool = try APNsConnectionPool(
                credential: .token(Live.tokenCredential().credential), environment: Live.environment(port: port),
                configuration: Live.poolConfiguration(transport: .plaintext, connections: 2),
                eventLoop: Live.group.next())
            try await Live.withPool(pool) { pool in
                let outcomes = try await self.send(1_000, through: pool, topic: "com.example.salvo")
                #expect(outcomes.count == 1_000)
                #expect(outcomes.values.allSatisfy { $0.isAccepted || $0.rejection?.reason == .unregistered })
                #expect(server.stats().streamLimitDrops > 0)
            }
        }
    }

    @Test("GOAWAY from the mock mid-run: the pool replaces its connections, nothing is lost")
    func goAwayMidRun() async throws {
        try await self.withMock({ _ in }) { server, port in
            let pool = try APNsConnectionPool(
                credential: .token(Live.tokenCredential().credential), environment: Live.environment(port: port),
                configuration: Live.poolConfiguration(transport: .plaintext, connections: 2),
                eventLoop: Live.group.next())
            try await Live.withPool(pool) { pool in
                let outcomes = try await self.send(3_000, through: pool, topic: "com.example.salvo") {
                    await server.sendGoAway()
                }
                #expect(outcomes.count == 3_000)
                #expect(outcomes.values.allSatisfy { $0.isAccepted })
                #expect(server.stats().accepted == 3_000, "each notification accepted once")
                // The drained connections are gone: this one needs a replacement.
                #expect(await pool.send(self.request(99_999, topic: "com.example.salvo")).isAccepted)
                let stats = server.stats()
                #expect(stats.goAwaysSent >= 1)
                #expect(stats.connectionsTotal >= 3, "the connections were replaced")
            }
        }
    }

    @Test("the mock closing every socket mid-run: unsent requests are replayed, the rest fail as connectionLost")
    func socketClosedMidRun() async throws {
        try await self.withMock({ $0.scenario.latency = .fixed(milliseconds: 5) }) { server, port in
            let pool = try APNsConnectionPool(
                credential: .token(Live.tokenCredential().credential), environment: Live.environment(port: port),
                configuration: Live.poolConfiguration(transport: .plaintext, connections: 2),
                eventLoop: Live.group.next())
            try await Live.withPool(pool) { pool in
                let outcomes = try await self.send(3_000, through: pool, topic: "com.example.salvo") {
                    await server.closeConnections()
                }
                let accepted = outcomes.values.filter(\.isAccepted).count
                let lost = outcomes.values.filter { $0.error?.code == .connectionLost }.count
                #expect(outcomes.count == 3_000)
                #expect(accepted + lost == 3_000)
                // The pool serves on, over connections opened after the close.
                #expect(await pool.send(self.request(99_999, topic: "com.example.salvo")).isAccepted)
                #expect(server.stats().connectionsTotal >= 3, "the pool reconnected")
            }
        }
    }

    @Test("a mock slower than the request timeout: the request times out, the connection stays")
    func timeout() async throws {
        // Loops of its own: the throughput tests running alongside must not delay the answers.
        try await Live.withOwnGroup { group in
            try await self.withMock(group: group, { $0.scenario.latency = .fixed(milliseconds: 4_000) }) {
                server, port in
                var configuration = Live.poolConfiguration(transport: .plaintext, connections: 1)
                configuration.connection.requestTimeout = .seconds(1)
                let pool = try APNsConnectionPool(
                    credential: .token(Live.tokenCredential().credential), environment: Live.environment(port: port),
                    configuration: configuration, eventLoop: group.next())
                try await Live.withPool(pool) { pool in
                    let outcome = await pool.send(self.request(1, topic: "com.example.salvo"))
                    #expect(outcome.error?.code == .timedOut)
                    try server.setScenario(MockScenario())
                    let second = await pool.send(self.request(2, topic: "com.example.salvo"))
                    #expect(second.isAccepted, "\(second)")
                    #expect(await pool.snapshot().connections.count == 1)
                }
            }
        }
    }
}
