import Crypto
import Foundation
import NIOCore
import SalvoAPNs
import SalvoHTTP2
import SalvoMockAPNs
import Testing

@Suite("Authentication over TLS: provider tokens and client certificates")
struct AuthenticationTests {
    let material: MockTLSMaterial

    init() throws {
        self.material = try MockTLSMaterial.generate(topic: TestPush.topic)
    }

    private func configure(_ configuration: inout MockAPNsServer.Configuration) throws {
        configuration.transport = .tls(try self.material.serverTLS(acceptClientCertificates: true))
        configuration.tokenKeys = [self.material.tokenKey]
    }

    private func token(
        issuedAt: Int64 = Int64(Date().timeIntervalSince1970), key: APNsTokenCredential? = nil
    ) throws -> String {
        try APNsJWTSigner(credential: key ?? self.material.tokenCredential()).sign(issuedAt: issuedAt).jwt
    }

    private func withTLSClient(
        presentingCertificate: Bool, _ body: (MockAPNsServer, TestAPNsClient) async throws -> Void
    )
        async throws
    {
        try await MockFixture.withServer(self.configure) { server, addresses in
            let client = try await TestAPNsClient.connect(
                port: addresses.port,
                tls: try self.material.clientTLSConfiguration(presentingClientCertificate: presentingCertificate))
            do {
                try await body(server, client)
                await client.close()
            } catch {
                await client.close()
                throw error
            }
        }
    }

    @Test("token mode: a valid JWT is accepted, then reused without a new verification")
    func validToken() async throws {
        let jwt = try self.token()
        try await self.withTLSClient(presentingCertificate: false) { server, client in
            for _ in 0..<3 {
                let response = try await client.send(TestPush().adding("authorization", "bearer \(jwt)").request)
                #expect(response.status == 200)
            }
            #expect(server.stats().accepted == 3)
        }
    }

    @Test("token mode: missing, forged and expired tokens get 403 with Apple's reasons")
    func badTokens() async throws {
        let forger = try APNsTokenCredential(
            keyID: self.material.tokenKeyID, teamID: self.material.tokenTeamID, privateKey: .init())
        let forged = try self.token(key: forger)
        let expired = try self.token(issuedAt: Int64(Date().timeIntervalSince1970) - 3_700)
        try await self.withTLSClient(presentingCertificate: false) { _, client in
            let missing = try await client.send(TestPush().request)
            #expect(missing.status == 403)
            #expect(missing.reason == .missingProviderToken)
            let invalid = try await client.send(TestPush().adding("authorization", "bearer \(forged)").request)
            #expect(invalid.status == 403)
            #expect(invalid.reason == .invalidProviderToken)
            let old = try await client.send(TestPush().adding("authorization", "bearer \(expired)").request)
            #expect(old.status == 403)
            #expect(old.reason == .expiredProviderToken)
        }
    }

    @Test("token mode: a second token on one connection within 20 minutes gets 429 TooManyProviderTokenUpdates")
    func tokenUpdates() async throws {
        let now = Int64(Date().timeIntervalSince1970)
        let first = try self.token(issuedAt: now)
        let second = try self.token(issuedAt: now - 1)
        try await self.withTLSClient(presentingCertificate: false) { _, client in
            #expect(try await client.send(TestPush().adding("authorization", "bearer \(first)").request).status == 200)
            let update = try await client.send(TestPush().adding("authorization", "bearer \(second)").request)
            #expect(update.status == 429)
            #expect(update.reason == .tooManyProviderTokenUpdates)
            #expect(try await client.send(TestPush().adding("authorization", "bearer \(first)").request).status == 200)
        }
        // A new connection may use the second token.
        try await self.withTLSClient(presentingCertificate: false) { _, client async throws in
            #expect(try await client.send(TestPush().adding("authorization", "bearer \(second)").request).status == 200)
        }
    }

    @Test("certificate mode: the certificate's bundle id and its suffixes only; the topic may be left out")
    func certificate() async throws {
        try await self.withTLSClient(presentingCertificate: true) { server, client in
            #expect(try await client.send(TestPush().request).status == 200)
            let voip = TestPush().with("apns-topic", "\(TestPush.topic).voip").with("apns-push-type", "voip")
            #expect(try await client.send(voip.request).status == 200)
            #expect(try await client.send(TestPush().with("apns-topic", nil).request).status == 200)
            let other = try await client.send(TestPush().with("apns-topic", "com.example.other").request)
            #expect(other.status == 400)
            #expect(other.reason == .topicDisallowed)
            #expect(server.stats().accepted == 3)
        }
    }
}
