import Foundation
import NIOCore
import SalvoAPNs
import SalvoHTTP2
import SalvoMockAPNs
import Testing

/// Apple: "APNs allows only one stream until you post a request with a valid authentication
/// token". The mock's token connections advertise MAX_CONCURRENT_STREAMS 1 until then.
@Suite struct BroadcastTokenStartTests {
    @Test(
        "a token connection advertises one stream; a refused token keeps it; the first valid token opens it to the scenario's value"
    )
    func opensAfterValidToken() async throws {
        let material = try MockTLSMaterial.generate(topic: TestPush.topic)
        let signer = try APNsJWTSigner(credential: material.tokenCredential())
        let jwt = try signer.sign(issuedAt: Int64(Date().timeIntervalSince1970)).jwt
        try await MockFixture.withServer({
            $0.tokenKeys = [material.tokenKey]
            $0.scenario.maxConcurrentStreams = 250
        }) { _, addresses in
            let client = try await TestAPNsClient.connect(port: addresses.port, tls: nil)
            defer { Task { await client.close() } }
            #expect(await eventually { client.events.maxConcurrentStreamsSeen == [1] })
            let forged = try await client.send(TestPush().with("authorization", "bearer \(jwt.dropLast(3))AAA").request)
            #expect(forged.status == 403)
            try await Task.sleep(for: .milliseconds(50))
            #expect(client.events.maxConcurrentStreamsSeen == [1], "a refused token does not open the connection")
            let valid = try await client.send(TestPush().with("authorization", "bearer \(jwt)").request)
            #expect(valid.status == 200)
            #expect(await eventually { client.events.maxConcurrentStreamsSeen == [1, 250] })
        }
    }

    @Test("without token keys a connection advertises the scenario's streams at once")
    func openWithoutTokens() async throws {
        try await MockFixture.withClient({ $0.scenario.maxConcurrentStreams = 250 }) { _, client in
            #expect(await eventually { client.events.maxConcurrentStreamsSeen == [250] })
        }
    }
}
