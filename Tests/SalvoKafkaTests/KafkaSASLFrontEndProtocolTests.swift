import SalvoTestSupport
import Testing

/// The front end's answers byte by byte, for what librdkafka never sends: SaslHandshake v0
/// (bare tokens), SaslAuthenticate v2 (flexible), requests pipelined behind ApiVersions, and the
/// requests a Kafka SASL listener refuses. The broker behind is the suite's Tansu.
@Suite struct KafkaSASLFrontEndProtocolTests {
    typealias Frames = KafkaRawFrames

    static let plainToken = Array("\0alice\0alice-secret".utf8)

    static func withFrontEnd(_ body: (KafkaSASLFrontEnd) async throws -> Void) async throws {
        let upstream = try #require(try KafkaTestCluster.tansuBrokers().first)
        let frontEnd = try await KafkaSASLFrontEnd.start(
            upstream: upstream, mechanisms: [.scramSHA256, .plain], users: ["alice": "alice-secret"])
        try await withCleanUp(frontEnd, cleanUp: { await $0.stop() }, body)
    }

    static func handshake(_ mechanism: String, version: Int16 = 1, correlationID: Int32 = 2) -> [UInt8] {
        Frames.request(apiKey: 17, version: version, correlationID: correlationID, body: Frames.string(mechanism))
    }

    /// SaslAuthenticate v2: compact bytes and an empty tag buffer, under request header v2.
    static func authenticateV2(_ token: [UInt8], correlationID: Int32 = 3) -> [UInt8] {
        Frames.request(
            apiKey: 36, version: 2, correlationID: correlationID, flexibleHeader: true,
            body: [UInt8(token.count + 1)] + token + [0])
    }

    /// The handshake answer: correlation id, error code, mechanisms.
    static func readHandshake(_ payload: [UInt8]?) throws -> (Int32, Int16, [String]) {
        let reader = Frames.Reader(try #require(payload))
        let correlationID = try #require(reader.int32())
        let error = try #require(reader.int16())
        let count = try #require(reader.int32())
        return (correlationID, error, try (0..<count).map { _ in try #require(reader.string()) })
    }

    /// The SaslAuthenticate v2 answer: correlation id, error code, error message.
    static func readAuthenticateV2(_ payload: [UInt8]?) throws -> (Int32, Int16, String?) {
        let reader = Frames.Reader(try #require(payload))
        let correlationID = try #require(reader.int32())
        #expect(reader.smallVarint() == 0, "response header v1 has an empty tag buffer")
        let error = try #require(reader.int16())
        let length = try #require(reader.smallVarint())
        let message = length == 0 ? nil : try #require(reader.take(length - 1)).map { Character(UnicodeScalar($0)) }
        return (correlationID, error, message.map { String($0) })
    }

    @Test func apiVersionsIsAnsweredByTheBrokerInOrderBeforeAPipelinedHandshake() async throws {
        try await Self.withFrontEnd { frontEnd in
            let connection = try KafkaRawTestConnection(port: frontEnd.port)
            try connection.write(Frames.request(apiKey: 18, version: 0, correlationID: 1) + Self.handshake("PLAIN"))
            let versions = Frames.Reader(try #require(try connection.receiveFrame()))
            #expect(versions.int32() == 1 && versions.int16() == 0)
            var ranges: [Int16: ClosedRange<Int16>] = [:]
            for _ in 0..<(versions.int32() ?? 0) {
                guard let key = versions.int16(), let low = versions.int16(), let high = versions.int16() else { break }
                ranges[key] = low...high
            }
            #expect(ranges[17].map { $0.contains(0) && $0.contains(1) } == true, "SaslHandshake v0-1: \(ranges)")
            #expect(ranges[36].map { $0.contains(0) && $0.contains(2) } == true, "SaslAuthenticate v0-2: \(ranges)")
            #expect(ranges[3] != nil, "the broker's own APIs, Metadata among them")

            let (correlationID, error, mechanisms) = try Self.readHandshake(try connection.receiveFrame())
            #expect(correlationID == 2 && error == 0)
            #expect(mechanisms == ["SCRAM-SHA-256", "PLAIN"])
        }
    }

    @Test func flexibleSaslAuthenticateThenRequestsAreRelayed() async throws {
        try await Self.withFrontEnd { frontEnd in
            let connection = try KafkaRawTestConnection(port: frontEnd.port)
            try connection.write(Self.handshake("PLAIN"))
            #expect(try Self.readHandshake(try connection.receiveFrame()).1 == 0)
            // The token and a Metadata v0 request (all topics) in one write: the request is the broker's.
            let metadata = Frames.request(apiKey: 3, version: 0, correlationID: 4, body: Frames.int32(0))
            try connection.write(Self.authenticateV2(Self.plainToken) + metadata)
            let (correlationID, error, message) = try Self.readAuthenticateV2(try connection.receiveFrame())
            #expect(correlationID == 3 && error == 0 && message == nil)
            let answer = Frames.Reader(try #require(try connection.receiveFrame()))
            #expect(answer.int32() == 4, "the broker's Metadata answer")
            #expect(frontEnd.statistics.authenticated == [.plain: 1] && frontEnd.statistics.users == ["alice"])
        }
    }

    @Test func handshakeV0TakesBareTokens() async throws {
        try await Self.withFrontEnd { frontEnd in
            let connection = try KafkaRawTestConnection(port: frontEnd.port)
            try connection.write(Self.handshake("PLAIN", version: 0))
            #expect(try Self.readHandshake(try connection.receiveFrame()).1 == 0)
            try connection.write(Frames.int32(Int32(Self.plainToken.count)) + Self.plainToken)
            #expect(try connection.receiveFrame() == [], "PLAIN's empty answer token")
            try connection.write(Frames.request(apiKey: 18, version: 0, correlationID: 9))
            let versions = Frames.Reader(try #require(try connection.receiveFrame()))
            #expect(versions.int32() == 9 && versions.int16() == 0, "relayed to the broker")
        }
    }

    @Test func wrongPasswordIsAnsweredWithSaslAuthenticationFailedThenClosed() async throws {
        try await Self.withFrontEnd { frontEnd in
            let connection = try KafkaRawTestConnection(port: frontEnd.port)
            try connection.write(Self.handshake("PLAIN"))
            _ = try connection.receiveFrame()
            try connection.write(Self.authenticateV2(Array("\0alice\0wrong".utf8)))
            let (correlationID, error, message) = try Self.readAuthenticateV2(try connection.receiveFrame())
            #expect(correlationID == 3 && error == 58)
            #expect(message == "Authentication failed: Invalid username or password")
            #expect(try connection.receiveFrame() == nil, "closed after the answer")
            #expect(frontEnd.statistics.authenticationFailures == 1)
        }
    }

    @Test func unsupportedMechanismGetsTheEnabledListThenClose() async throws {
        try await Self.withFrontEnd { frontEnd in
            let connection = try KafkaRawTestConnection(port: frontEnd.port)
            try connection.write(Self.handshake("GSSAPI"))
            let (_, error, mechanisms) = try Self.readHandshake(try connection.receiveFrame())
            #expect(error == 33 && mechanisms == ["SCRAM-SHA-256", "PLAIN"])
            #expect(try connection.receiveFrame() == nil, "closed after the answer")
            #expect(frontEnd.statistics.unsupportedMechanisms == 1)
        }
    }

    @Test func otherRequestsBeforeAuthenticationCloseWithoutAnswer() async throws {
        try await Self.withFrontEnd { frontEnd in
            let metadata = try KafkaRawTestConnection(port: frontEnd.port)
            try metadata.write(Frames.request(apiKey: 3, version: 0, correlationID: 1, body: Frames.int32(0)))
            #expect(try metadata.receiveFrame() == nil)

            let early = try KafkaRawTestConnection(port: frontEnd.port)
            try early.write(Self.authenticateV2(Self.plainToken))
            #expect(try early.receiveFrame() == nil, "SaslAuthenticate before SaslHandshake")

            let huge = try KafkaRawTestConnection(port: frontEnd.port)
            try huge.write(Frames.int32(1 << 24) + [0, 18, 0, 0])
            #expect(try huge.receiveFrame() == nil, "a 16 MiB frame before authentication")
            #expect(frontEnd.statistics.refusedRequests == 3 && frontEnd.statistics.authenticatedConnections == 0)
        }
    }
}
