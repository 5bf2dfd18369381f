import Crypto
import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import SalvoAPNs
import SalvoMockAPNs
import Testing

@testable import SalvoWorker

/// A broadcast job from its message to the mock over TLS with a provider token, and its outcome:
/// delivered (the record names the channel and the payload's SHA-256, byte for byte), then, once
/// the channel is deleted, dead-lettered with `ChannelNotRegistered` and a channel feedback event.
@Suite struct BroadcastSenderTests {
    @Test("delivered, recorded byte for byte; after deletion dead-lettered with its feedback event")
    func endToMock() async throws {
        let material = try MockTLSMaterial.generate(topic: "com.example.sports")
        let record = FileManager.default.temporaryDirectory.appendingPathComponent("bc-\(UUID().uuidString).ndjson")
            .path
        defer { try? FileManager.default.removeItem(atPath: record) }
        var configuration = MockAPNsServer.Configuration()
        configuration.transport = .tls(try material.serverTLS(acceptClientCertificates: false))
        configuration.tokenKeys = [material.tokenKey]
        configuration.recordPath = record
        configuration.broadcastHost = "127.0.0.1"
        var logger = Logger(label: "salvo.mock-apns.test")
        logger.logLevel = .error
        let server = try MockAPNsServer(configuration: configuration, logger: logger)
        let addresses = try await server.start()
        var pool = APNsConnectionPool.Configuration()
        pool.connection.transport = .tls(
            trustRoots: .certificates(try NIOSSLCertificate.fromPEMBytes(Array(material.caCertificatePEM.utf8))))
        pool.connection.tlsServerName = "localhost"
        pool.connection.requestTimeout = .seconds(10)
        let app = WorkerApp(
            bundleID: "com.example.sports", credential: .token(try material.tokenCredential()),
            endpoints: [.production: .custom(host: "127.0.0.1", port: addresses.port, behavesAs: .production)],
            pool: pool)
        let management = APNsEnvironment.custom(
            host: "127.0.0.1", port: addresses.broadcast!.port!, behavesAs: .production)
        let sender = try BroadcastSender(
            apps: ["sports": app], managementEndpoints: ["sports": [.production: management]],
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
            tokenProviders: try APNsTokenProviderRegistry(clock: ContinuousClock()))
        let channel = try #require(
            server.channels.create(bundleID: "com.example.sports", environment: .production, storagePolicy: 0))
        let decoder = try JobDecoder(configuration: .init(apps: ["sports": app.profile]))
        // Spacing and key order are kept: the mock must see these exact bytes.
        let payload =
            #"{ "aps": {"event":"update", "timestamp": 1784487600, "content-state": {"home": 2, "away": 1}} }"#
        let message = ByteBuffer(
            string:
                #"{"id":"goal-3","app":"sports","channel_id":"\#(channel)","campaign_id":"final","payload":\#(payload)}"#
        )
        guard case .success(.broadcast(let job)) = decoder.decodeAny(message) else {
            Issue.record("not a broadcast")
            await server.shutdown()
            return
        }
        let source = SourcePosition(topic: "salvo.jobs", partition: 0, offset: 7)
        let now = UTCTimestamp(millisecondsSince1970: 1_784_487_601_000)

        let first = BroadcastOutcome.classify(
            await sender.send(job), job: job, message: message, source: source, attempt: 1, at: now)
        guard case .delivered(let response) = first else {
            Issue.record("\(first)")
            await server.shutdown()
            return
        }
        #expect(response.requestID == job.requestID.string, "the derived apns-request-id is echoed")
        #expect(server.stats().channelRequests == 0, "expiration 0 needs no channel read")

        // A stored expiration on this no-storage channel: one read, then refused before sending.
        let stored = ByteBuffer(
            string:
                #"{"id":"goal-4","app":"sports","channel_id":"\#(channel)","expiration":1900000000,"payload":\#(payload)}"#
        )
        guard case .success(.broadcast(let storedJob)) = decoder.decodeAny(stored) else { throw CancellationError() }
        for _ in 0..<2 {
            let refused = BroadcastOutcome.classify(
                await sender.send(storedJob), job: storedJob, message: stored, source: source, attempt: 1, at: now)
            guard case .deadLetter(let letter, nil) = refused else {
                Issue.record("\(refused)")
                break
            }
            #expect(letter.reason.code == DeadLetterReason.invalidRequestCode)
        }
        #expect(server.stats().channelRequests == 1, "the policy is read once and remembered")
        #expect(server.stats().broadcastsAccepted == 1)

        #expect(server.channels.delete(bundleID: "com.example.sports", environment: .production, channelID: channel))
        let second = BroadcastOutcome.classify(
            await sender.send(job), job: job, message: message, source: source, attempt: 1, at: now)
        await sender.shutdown()
        await server.shutdown()

        guard case .deadLetter(let deadLetter, let feedback) = second else {
            Issue.record("\(second)")
            return
        }
        let dlq = deadLetter.record()
        #expect(dlq.value == Array(message.readableBytesView), "the original job, republishable")
        #expect(dlq.header("salvo-reason") == DeadLetterReason.apnsRejectedCode)
        #expect(dlq.header("salvo-apns-reason") == "ChannelNotRegistered")
        let event = try #require(feedback)
        #expect(event.key == Array(channel.utf8))
        let object = try JSONSerialization.jsonObject(with: Data(event.value)) as? [String: Any]
        #expect(object?["apns_reason"] as? String == "ChannelNotRegistered" && object?["job_id"] as? String == "goal-3")

        let lines = try String(contentsOfFile: record, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 1)
        let line = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any]
        #expect(line?["channel_id"] as? String == channel)
        let digest = SHA256.hash(data: Data(payload.utf8)).map { String(format: "%02x", $0) }.joined()
        #expect(line?["payload_sha256"] as? String == digest)
        #expect(line?["payload_bytes"] as? Int == payload.utf8.count)
    }

    @Test("429 and 5xx answers and transport failures are retried; a request that cannot be built is dead-lettered")
    func retries() throws {
        let decoder = try JobDecoder(configuration: .init(apps: ["sports": AppProfile(bundleID: "com.example.sports")]))
        let message = ByteBuffer(
            string: #"{"id":"g","app":"sports","channel_id":"dGVzdA==","payload":{"aps":{"event":"end"}}}"#)
        guard case .success(.broadcast(let job)) = decoder.decodeAny(message) else { throw CancellationError() }
        let at = UTCTimestamp(millisecondsSince1970: 0)
        func outcome(_ result: Result<APNsChannelResponse, APNsError>) -> BroadcastOutcome {
            BroadcastOutcome.classify(result, job: job, message: message, source: nil, attempt: 2, at: at)
        }
        guard case .retry(.backoff, _) = outcome(.success(APNsChannelResponse(status: 503, reason: .shutdown))) else {
            throw CancellationError()
        }
        guard
            case .retry(.afterDelayPerToken, _) = outcome(
                .success(APNsChannelResponse(status: 429, reason: .tooManyRequests)))
        else {
            throw CancellationError()
        }
        guard case .retry = outcome(.failure(.notSent("GOAWAY"))) else { throw CancellationError() }
        guard
            case .deadLetter(let record, nil) = outcome(
                .success(APNsChannelResponse(status: 400, reason: .badExpirationDate)))
        else {
            throw CancellationError()
        }
        #expect(record.attempts == 2)
        guard
            case .deadLetter(let invalid, nil) = outcome(
                .failure(APNsError(code: .invalidExpiration, message: "no-storage")))
        else {
            throw CancellationError()
        }
        #expect(invalid.reason.code == DeadLetterReason.invalidRequestCode)
    }
}
