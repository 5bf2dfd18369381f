import NIOCore
import SalvoAPNs
import SalvoHTTP2
import SalvoMockAPNs
import SalvoTestSupport
import Testing

/// The mock runs where anything may talk to it: no request, admin call or scenario crashes it.
/// Each case is answered with a stream error or a 4xx, and the mock keeps serving.
@Suite("Hostile input to the mock")
struct HostileInputTests {
    private static func field(_ name: String, _ value: String) -> (name: [UInt8], value: [UInt8]) {
        (Array(name.utf8), Array(value.utf8))
    }

    /// The pseudo-headers and APNs fields of a valid push to `token`.
    private static func pushFields(token: String = TestPush.validToken) -> [(name: [UInt8], value: [UInt8])] {
        [
            field(":method", "POST"), field(":scheme", "http"), field(":path", "/3/device/\(token)"),
            field(":authority", "localhost"), field("apns-topic", TestPush.topic), field("apns-push-type", "alert"),
        ]
    }

    @Test("a 65,536-byte header name and 3,000 fields: each stream reset, the connection and the server go on")
    func oversizedHeaderBlocks() async throws {
        try await MockFixture.withServer { server, addresses in
            let peer = try await RawHTTP2Peer.connect(port: addresses.port)
            var bytes = RawHTTP2Peer.request(
                streamID: 1,
                fields: Self.pushFields() + [(Array(repeating: UInt8(ascii: "x"), count: 65_536), Array("v".utf8))])
            bytes.writeImmutableBuffer(
                RawHTTP2Peer.request(streamID: 3, fields: Self.pushFields(), body: Array(TestPush.payload.utf8)))
            bytes.writeImmutableBuffer(
                RawHTTP2Peer.request(
                    streamID: 5, fields: Self.pushFields() + (0..<3_000).map { Self.field("x-\($0)", "v") }))
            try await peer.send(bytes)

            let answered = await eventually {
                peer.resets.count == 2 && peer.frames.contains { $0.type == RawHTTP2Peer.headers && $0.streamID == 3 }
            }
            #expect(answered, "frames: \(peer.frames.map { ($0.type, $0.streamID) })")
            #expect(peer.resets.map(\.streamID).sorted() == [1, 5])
            #expect(peer.resets.allSatisfy { $0.errorCode == 0x1 }, "PROTOCOL_ERROR")
            // `:status: 200` is HPACK static entry 8.
            #expect(peer.frames.first { $0.type == RawHTTP2Peer.headers && $0.streamID == 3 }?.payload.first == 0x88)
            #expect(!peer.frames.contains { $0.type == RawHTTP2Peer.goAway })
            await peer.close()

            let client = try await TestAPNsClient.connect(port: addresses.port, tls: nil)
            #expect(try await client.send(TestPush().request).status == 200)
            await client.close()
            #expect(server.stats().accepted == 2)
        }
    }

    @Test(
        "POST /shutdown-storm refuses seconds that are not a number within (0, 86400] with 400",
        arguments: [
            "inf", "1e300", "nan", "-1", "0", "abc", "86401", "",
        ])
    func stormSeconds(seconds: String) async throws {
        try await MockFixture.withServer({ $0.adminHost = "127.0.0.1" }) { server, addresses in
            let admin = "http://\(try #require(addresses.adminEndpoint))"
            let answer = try await Self.curl([
                "-X", "POST", "-w", "\n%{http_code}", "\(admin)/shutdown-storm?seconds=\(seconds)",
            ])
            #expect(answer.stdoutText.hasSuffix("\n400"), "\(answer.stdoutText)")
            #expect(answer.stdoutText.contains("seconds"))
            #expect(try await Self.curl(["\(admin)/healthz"]).stdoutText == "ok\n")
            let client = try await TestAPNsClient.connect(port: addresses.port, tls: nil)
            #expect(try await client.send(TestPush().request).status == 200, "no storm started")
            await client.close()
        }
    }

    @Test("POST /shutdown-storm with a valid length still starts a storm")
    func stormStarts() async throws {
        try await MockFixture.withServer({ $0.adminHost = "127.0.0.1" }) { server, addresses in
            let admin = "http://\(try #require(addresses.adminEndpoint))"
            let answer = try await Self.curl([
                "-X", "POST", "-w", "\n%{http_code}", "\(admin)/shutdown-storm?seconds=86400",
            ])
            #expect(answer.stdoutText.hasSuffix("\n200"))
            let client = try await TestAPNsClient.connect(port: addresses.port, tls: nil)
            #expect(try await client.send(TestPush().request).reason == .shutdown)
            await client.close()
            #expect(throws: MockAPNsError.self) { try server.startShutdownStorm(seconds: .infinity) }
        }
    }

    @Test("PUT /scenario with durations that would overflow is refused with 400")
    func scenarioDurations() async throws {
        try await MockFixture.withServer({ $0.adminHost = "127.0.0.1" }) { server, addresses in
            let admin = "http://\(try #require(addresses.adminEndpoint))"
            let answer = try await Self.curl([
                "-X", "PUT", "-w", "\n%{http_code}", "--data-binary", "latency: {distribution: fixed, fixed_ms: 1e300}",
                "\(admin)/scenario",
            ])
            #expect(answer.stdoutText.hasSuffix("\n400"))
            #expect(answer.stdoutText.contains("fixed_ms"))
            #expect(server.scenario.name == "default")
        }
    }

    private static func curl(_ arguments: [String]) async throws -> ExternalProcess.Result {
        try await ExternalProcess.run("/usr/bin/curl", ["-sS", "--max-time", "10"] + arguments)
    }
}
