import Foundation
import SalvoAPNs
import SalvoMockAPNs
import SalvoTestSupport
import Testing

/// The mock must answer clients it was not written with: curl (libcurl + nghttp2) and h2load.
@Suite("Independent clients: curl --http2 and h2load")
struct IndependentClientTests {
    let directory: String
    let material: MockTLSMaterial
    let tokenKeyArgument: String

    init() throws {
        self.directory =
            FileManager.default.temporaryDirectory.appendingPathComponent("mock-tls-\(UUID().uuidString)").path
        self.material = try MockTLSMaterial.generate(topic: TestPush.topic)
        self.tokenKeyArgument = try self.material.write(to: self.directory)
    }

    private func file(_ name: String) -> String { self.directory + "/" + name }

    private func curlPush(
        _ url: String, _ extra: [String], topic: String = TestPush.topic, headers: [String] = [],
        body: String = TestPush.payload
    ) async throws -> (status: Int, body: String, headers: String) {
        var arguments = [
            "-sS", "--max-time", "10", "-X", "POST", "-D", "-", "-w", "\n%{http_code}", "--data-binary", body,
        ]
        for header in ["apns-topic: \(topic)", "apns-push-type: alert"] + headers { arguments += ["-H", header] }
        let output = try await ExternalProcess.run("/usr/bin/curl", arguments + extra + [url])
        #expect(output.status == 0, "curl: \(output.stderr)")
        // Header lines end in CRLF, which Swift treats as one Character: split on both.
        let lines = output.stdoutText.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
        let status = Int(lines.last ?? "") ?? 0
        let bodyLine = lines.dropLast().last.map(String.init) ?? ""
        return (status, bodyLine, output.stdoutText)
    }

    @Test("curl over TLS with a provider token, and with a client certificate")
    func curlTLS() async throws {
        defer { try? FileManager.default.removeItem(atPath: self.directory) }
        let jwt = try String(contentsOfFile: self.file(MockTLSMaterial.FileName.providerToken), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        try await MockFixture.withServer({ configuration in
            configuration.transport = .tls(try self.material.serverTLS())
            configuration.tokenKeys = [try MockTokenKey(argument: self.tokenKeyArgument)]
        }) { server, addresses in
            let url = "https://127.0.0.1:\(addresses.port)/3/device/\(TestPush.validToken)"
            let tls = ["--http2", "--cacert", self.file(MockTLSMaterial.FileName.caCertificate)]

            let token = try await self.curlPush(url, tls, headers: ["authorization: bearer \(jwt)"])
            #expect(token.status == 200)
            #expect(token.headers.lowercased().contains("apns-id: "))
            #expect(token.headers.hasPrefix("HTTP/2 200"))

            let missing = try await self.curlPush(url, tls)
            #expect(missing.status == 403)
            #expect(missing.body == #"{"reason":"MissingProviderToken"}"#)

            let signer = try APNsJWTSigner(credential: self.material.tokenCredential())
            let now = Int64(Date().timeIntervalSince1970)
            let expired = try await self.curlPush(
                url, tls, headers: ["authorization: bearer \(try signer.sign(issuedAt: now - 3_700).jwt)"])
            #expect(expired.status == 403)
            #expect(expired.body == #"{"reason":"ExpiredProviderToken"}"#)
            let forged = try await self.curlPush(url, tls, headers: ["authorization: bearer \(jwt.dropLast(4))AAAA"])
            #expect(forged.status == 403)
            #expect(forged.body == #"{"reason":"InvalidProviderToken"}"#)

            // Two transfers in one curl run share its connection: the second brings a new token.
            let second = try signer.sign(issuedAt: now - 60).jwt
            let updates = try await ExternalProcess.run(
                "/usr/bin/curl",
                ["-sS", "--max-time", "10"] + tls + [
                    "-o", "/dev/null", "-w", "%{http_code} %{num_connects}\n", "--data-binary", TestPush.payload,
                    "-H", "apns-topic: \(TestPush.topic)", "-H", "authorization: bearer \(jwt)", url, "--next",
                ] + tls + [
                    "-o", "/dev/null", "-w", "%{http_code} %{num_connects}\n", "--data-binary", TestPush.payload,
                    "-H", "apns-topic: \(TestPush.topic)", "-H", "authorization: bearer \(second)", url,
                ])
            #expect(
                updates.stdoutText == "200 1\n429 0\n",
                "one connection, then the new token is refused: \(updates.stderr)")
            #expect(server.stats().rejected("TooManyProviderTokenUpdates") == 1)

            let certificate = [
                "--cert", self.file(MockTLSMaterial.FileName.clientCertificate),
                "--key", self.file(MockTLSMaterial.FileName.clientPrivateKey),
            ]
            #expect(try await self.curlPush(url, tls + certificate).status == 200)
            let disallowed = try await self.curlPush(url, tls + certificate, topic: "com.other.app")
            #expect(disallowed.status == 400)
            #expect(disallowed.body == #"{"reason":"TopicDisallowed"}"#)
            #expect(server.stats().accepted == 3)
        }
    }

    @Test("curl over h2c (prior knowledge): validation answers and the 410 body")
    func curlH2C() async throws {
        defer { try? FileManager.default.removeItem(atPath: self.directory) }
        try await MockFixture.withServer({ $0.scenario.tokens = MockTokenFate(unregistered: 1) }) { _, addresses in
            let url = "http://127.0.0.1:\(addresses.port)/3/device/\(TestPush.validToken)"
            let dead = try await self.curlPush(url, ["--http2-prior-knowledge"])
            #expect(dead.status == 410)
            let body = try #require(APNsErrorBody(parsing: Array(dead.body.utf8)))
            #expect(body.reason == .unregistered)
            #expect(body.timestampMilliseconds != nil)
            let tooLarge = try await self.curlPush(
                url, ["--http2-prior-knowledge"], body: String(repeating: "x", count: 4097))
            #expect(tooLarge.status == 413)
            #expect(tooLarge.body == #"{"reason":"PayloadTooLarge"}"#)
        }
    }

    @Test("h2load: thousands of concurrent APNs-shaped requests, every one answered 200 and counted")
    func h2load() async throws {
        defer { try? FileManager.default.removeItem(atPath: self.directory) }
        let bodyPath = self.file("body.json")
        try String(repeating: " ", count: 150).appending(TestPush.payload).write(
            toFile: bodyPath, atomically: true, encoding: .utf8)
        try await MockFixture.withServer { server, addresses in
            let output = try await ExternalProcess.run(
                "/usr/bin/h2load",
                [
                    "-n", "3000", "-c", "2", "-m", "100", "-d", bodyPath,
                    "-H", "apns-topic: \(TestPush.topic)", "-H", "apns-push-type: alert", "-H", "apns-priority: 10",
                    "http://127.0.0.1:\(addresses.port)/3/device/\(TestPush.validToken)",
                ], timeout: .seconds(60))
            #expect(output.status == 0, "\(output.stderr)")
            #expect(output.stdoutText.contains("3000 succeeded"), "\(output.stdoutText)")
            #expect(output.stdoutText.contains("status codes: 3000 2xx"), "\(output.stdoutText)")
            let stats = server.stats()
            #expect(stats.accepted == 3000)
            #expect(stats.connectionsTotal == 2)
        }
    }
}
