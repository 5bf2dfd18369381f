import Crypto
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import SalvoMockAPNs
import Testing

@testable import SalvoAPNs

/// Salvo's channel client against the mock over TLS with a provider token: every management
/// operation, broadcasts, and each reason the client can cause (the ones it refuses to send, a
/// malformed channel id for one, are covered by the curl suite); and the device-push pool through
/// a token connection's one-stream start.
@Suite("Channel client and the token connection's one-stream start against the mock")
struct ChannelClientLiveTests {
    static let app: APNsTopic = "com.example.salvo"
    static let payload = ByteBuffer(
        string: #"{"aps":{"timestamp":1700000000,"event":"update","content-state":{"km":12}}}"#)

    func withMock<T>(
        _ configure: (inout MockAPNsServer.Configuration) throws -> Void,
        _ body: (MockAPNsServer, MockAPNsServer.Addresses, MockTLSMaterial) async throws -> T
    ) async throws -> T {
        let material = try MockTLSMaterial.generate(topic: Self.app.string)
        var configuration = MockAPNsServer.Configuration()
        configuration.transport = .tls(try material.serverTLS(acceptClientCertificates: true))
        configuration.tokenKeys = [material.tokenKey]
        configuration.broadcastHost = "127.0.0.1"
        try configure(&configuration)
        var logger = Logger(label: "salvo.mock-apns.test")
        logger.logLevel = .error
        let server = try MockAPNsServer(configuration: configuration, logger: logger)
        let addresses = try await server.start()
        do {
            let result = try await body(server, addresses, material)
            await server.shutdown()
            return result
        } catch {
            await server.shutdown()
            throw error
        }
    }

    /// Polls `condition` every 10 ms for at most 5 s.
    static func eventually(_ condition: () async -> Bool) async -> Bool {
        for _ in 0..<500 {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return await condition()
    }

    static func client(_ material: MockTLSMaterial) throws -> APNsChannelClient {
        var configuration = APNsConnection.Configuration()
        configuration.transport = .tls(
            trustRoots: .certificates(try NIOSSLCertificate.fromPEMBytes(Array(material.caCertificatePEM.utf8))))
        configuration.requestTimeout = .seconds(10)
        return try APNsChannelClient(configuration: configuration, eventLoopGroup: Live.group)
    }

    @Test("create, read, list, broadcast, delete; the reasons the client can meet; the 10,001st channel")
    func operations() async throws {
        try await self.withMock({
            $0.broadcastFeatureDisabled = ["com.example.off"]
            $0.broadcastDisallowed = ["com.example.banned"]
            $0.teamBundleIDs = [$0.tokenKeys[0].teamID: [Self.app.string, "com.example.off", "com.example.banned"]]
        }) { server, addresses, material in
            let client = try Self.client(material)
            defer { Task { await client.shutdown() } }
            let credential = APNsCredential.token(try material.tokenCredential())
            let manage = APNsEnvironment.custom(
                host: "127.0.0.1", port: addresses.broadcast!.port!, behavesAs: .production)
            let push = APNsEnvironment.custom(host: "127.0.0.1", port: addresses.port, behavesAs: .production)

            let requestID = APNsID.random()
            let created = try await client.createChannel(
                bundleID: Self.app, storagePolicy: .mostRecentMessage, requestID: requestID, credential: credential,
                endpoint: manage)
            #expect(created.status == 201)
            #expect(created.requestID == requestID.string)
            let channel = try #require(created.channelID)
            let unstored = try #require(
                try await client.createChannel(
                    bundleID: Self.app, storagePolicy: .noStorage, credential: credential, endpoint: manage
                ).channelID)

            let read = try await client.readChannel(
                bundleID: Self.app, channelID: channel, credential: credential, endpoint: manage)
            #expect(read.status == 200)
            #expect(try read.channelConfiguration() == APNsChannelConfiguration(storagePolicy: .mostRecentMessage))
            let list = try await client.listChannels(bundleID: Self.app, credential: credential, endpoint: manage)
            #expect(Set(try list.listedChannelIDs()) == [channel, unstored])

            let broadcast = try APNsBroadcastRequest(
                bundleID: Self.app, channelID: channel, expiration: try APNsExpiration(secondsSince1970: 1_900_000_000),
                payload: Self.payload)
            let sent = try await client.broadcast(broadcast, credential: credential, environment: push)
            #expect(sent.status == 200)
            #expect(sent.uniqueID != nil && sent.requestID != nil)
            // After a GOAWAY the next broadcast goes out on a new connection.
            await server.sendGoAway()
            #expect(try await client.broadcast(broadcast, credential: credential, environment: push).status == 200)
            #expect(server.stats().connectionsTotal == 2 && server.stats().goAwaysSent == 1)

            // The storage rule: checked before sending, and by the mock when sent anyway.
            let late = try APNsBroadcastRequest(
                bundleID: Self.app, channelID: unstored,
                expiration: try APNsExpiration(secondsSince1970: 1_900_000_000), payload: Self.payload)
            #expect(throws: APNsError.self) { try late.check(storagePolicy: .noStorage) }
            let refused = try await client.broadcast(late, credential: credential, environment: push)
            #expect(refused.status == 400 && refused.reason == .badExpirationDate)
            #expect(refused.retryPolicy == .never)

            for (bundle, reason) in [
                ("com.example.off", APNsReason.featureNotEnabled), ("com.example.banned", .topicDisallowed),
            ] {
                let answer = try await client.listChannels(
                    bundleID: APNsTopic(stringLiteral: bundle), credential: credential, endpoint: manage)
                #expect(answer.reason == reason)
            }

            // The token's team owns three bundles here: a fourth is a mismatch, on both endpoints.
            let foreign = try await client.listChannels(
                bundleID: "com.example.stranger", credential: credential, endpoint: manage)
            #expect(foreign.status == 403 && foreign.reason == .topicMismatch)
            let foreignBroadcast = try APNsBroadcastRequest(
                bundleID: "com.example.stranger", channelID: channel, payload: Self.payload)
            #expect(
                try await client.broadcast(foreignBroadcast, credential: credential, environment: push).reason
                    == .topicMismatch)

            // Fill the app to Apple's 10,000, then ask for one more.
            for _ in 2..<MockChannelStore.appleLimit {
                _ = server.channels.create(bundleID: Self.app.string, environment: .production, storagePolicy: 1)
            }
            let full = try await client.createChannel(
                bundleID: Self.app, storagePolicy: .noStorage, credential: credential, endpoint: manage)
            #expect(full.status == 400 && full.reason == .cannotCreateChannelConfig)

            let deleted = try await client.deleteChannel(
                bundleID: Self.app, channelID: channel, credential: credential, endpoint: manage)
            #expect(deleted.status == 204)
            let again = try await client.deleteChannel(
                bundleID: Self.app, channelID: channel, credential: credential, endpoint: manage)
            #expect(again.reason == .channelNotRegistered)
            let gone = try await client.broadcast(broadcast, credential: credential, environment: push)
            #expect(gone.status == 400 && gone.reason == .channelNotRegistered)
            #expect(gone.reason?.producesChannelFeedback == true)
            #expect(server.stats().broadcastsAccepted == 2)

            // A certificate names its bundle; a token signed by an unknown key is refused.
            let certificate = APNsCredential.certificate(
                try APNsCertificateCredential(
                    certificateChain: NIOSSLCertificate.fromPEMBytes(Array(material.clientCertificatePEM.utf8)),
                    privateKey: NIOSSLPrivateKey(bytes: Array(material.clientPrivateKeyPEM.utf8), format: .pem)))
            let mismatch = try await client.listChannels(
                bundleID: "com.example.other", credential: certificate, endpoint: manage)
            #expect(mismatch.status == 403 && mismatch.reason == .topicMismatch)
            let own = try await client.listChannels(bundleID: Self.app, credential: certificate, endpoint: manage)
            #expect(try own.listedChannelIDs().count == MockChannelStore.appleLimit - 1)
            let stranger = APNsCredential.token(
                try APNsTokenCredential(keyID: "STRANGER01", teamID: material.tokenTeamID, privateKey: .init()))
            let forged = try await client.listChannels(bundleID: Self.app, credential: stranger, endpoint: manage)
            #expect(forged.status == 403 && forged.reason == .invalidProviderToken)
        }
    }

    @Test(
        "a token connection starts at one stream: the pool sees 1, then 100 after the first accepted request; 300 concurrent notifications on it are all answered"
    )
    func oneStreamStart() async throws {
        try await self.withMock({ $0.scenario.maxConcurrentStreams = 100 }) { server, addresses, material in
            let pool = try APNsConnectionPool(
                credential: .token(try material.tokenCredential()),
                environment: .custom(host: "127.0.0.1", port: addresses.port, behavesAs: .production),
                configuration: Live.poolConfiguration(
                    transport: .tls(
                        trustRoots: .certificates(
                            try NIOSSLCertificate.fromPEMBytes(Array(material.caCertificatePEM.utf8)))),
                    connections: 1),
                eventLoop: Live.group.next())
            try await Live.withPool(pool) { pool in
                // The pool's view of the connection: one stream until a token was accepted.
                func streams() async -> Int? { await pool.snapshot().connections.first?.maxConcurrentStreams }
                pool.start()
                #expect(await Self.eventually { await streams() != nil })
                #expect(await streams() == 1)
                let first = await pool.send(
                    try APNsRequest(
                        token: DeviceToken(hex: Live.token(999)), topic: Self.app, pushType: .alert,
                        payload: ByteBuffer(string: "{}")))
                #expect(first.isAccepted)
                #expect(await Self.eventually { await streams() == 100 }, "opened to the scenario's value")
                let outcomes = await withTaskGroup(of: APNsOutcome.self) { group in
                    for number in 0..<300 {
                        group.addTask {
                            await pool.send(
                                try! APNsRequest(
                                    token: DeviceToken(hex: Live.token(number)), topic: Self.app, pushType: .alert,
                                    payload: ByteBuffer(string: #"{"aps":{"alert":"one stream first"}}"#)))
                        }
                    }
                    var all: [APNsOutcome] = []
                    for await outcome in group { all.append(outcome) }
                    return all
                }
                #expect(outcomes.count == 300)
                let refused = outcomes.filter { !$0.isAccepted }
                #expect(refused.isEmpty, "\(refused.first.map { "\($0)" } ?? "")")
                let stats = server.stats()
                #expect(stats.accepted == 301)
                #expect(stats.connectionsTotal == 1)
                #expect(stats.rejectedTotal == 0 && stats.unanswered == 0)
            }
        }
    }
}
