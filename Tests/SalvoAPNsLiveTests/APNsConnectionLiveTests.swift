import Crypto
import NIOCore
import NIOPosix
import NIOSSL
import SalvoTestSupport
import Testing

@testable import SalvoAPNs

/// One connection against real HTTP/2 servers over loopback: nghttpd (independent) and the
/// scripted server (JWT verification, client-certificate verification, silence).
@Suite("APNsConnection over loopback")
struct APNsConnectionLiveTests {
    private func configuration(_ transport: APNsConnection.Transport) -> APNsConnection.Configuration {
        var configuration = APNsConnection.Configuration()
        configuration.transport = transport
        configuration.connectTimeout = .seconds(5)
        configuration.requestTimeout = .seconds(5)
        return configuration
    }

    @Test("TLS with a test CA: nghttpd answers 200 for a known token and 404 for an unknown one")
    func tlsWithTestCA() async throws {
        let pki = try TestPKI()
        defer { pki.remove() }
        let server = try NGHTTPDServer(pki: pki, tokens: [Live.token(1)])
        defer { server.stop() }
        let connection = try await APNsConnection.connect(
            to: Live.environment(port: server.port), credential: .token(Live.tokenCredential().credential),
            configuration: self.configuration(pki.transport), eventLoop: Live.group.next())
        let accepted = try await connection.send(Live.request(1))
        let unknown = try await connection.send(Live.request(2))
        await connection.close()
        #expect(accepted.status == 200)
        #expect(unknown.status == 404)
    }

    @Test("a server certificate from an untrusted CA, or for another name, fails the connection")
    func verificationFailures() async throws {
        // No IP address in the certificate: NIOSSL would accept it for 127.0.0.1 whatever the name.
        let pki = try TestPKI(serverIPAddress: false)
        defer { pki.remove() }
        let server = try NGHTTPDServer(pki: pki, tokens: [])
        defer { server.stop() }
        let credential = APNsCredential.token(try Live.tokenCredential().credential)
        let otherCA = try TestPKI()
        defer { otherCA.remove() }
        await #expect {
            _ = try await APNsConnection.connect(
                to: Live.environment(port: server.port), credential: credential,
                configuration: self.configuration(otherCA.transport), eventLoop: Live.group.next())
        } throws: { error in
            (error as? APNsError)?.code == .connectionFailed
        }
        var rightName = self.configuration(pki.transport)
        rightName.tlsServerName = "localhost"
        let connection = try await APNsConnection.connect(
            to: Live.environment(port: server.port), credential: credential, configuration: rightName,
            eventLoop: Live.group.next())
        await connection.close()
        var wrongName = self.configuration(pki.transport)
        wrongName.tlsServerName = "api.push.apple.com"
        await #expect {
            _ = try await APNsConnection.connect(
                to: Live.environment(port: server.port), credential: credential, configuration: wrongName,
                eventLoop: Live.group.next())
        } throws: { error in
            (error as? APNsError)?.code == .connectionFailed
        }
    }

    @Test("certificate authentication: nghttpd --verify-client accepts the client certificate, refuses none")
    func clientCertificateNGHTTPD() async throws {
        let pki = try TestPKI()
        defer { pki.remove() }
        let server = try NGHTTPDServer(pki: pki, tokens: [Live.token(5)], requireClientCertificate: true)
        defer { server.stop() }
        let connection = try await APNsConnection.connect(
            to: Live.environment(port: server.port), credential: .certificate(pki.clientCredential),
            configuration: self.configuration(pki.transport), eventLoop: Live.group.next())
        #expect(try await connection.send(Live.request(5)).status == 200)
        await connection.close()
        // Without a client certificate the handshake fails (or the first request dies with it).
        do {
            let anonymous = try await APNsConnection.connect(
                to: Live.environment(port: server.port), credential: .token(Live.tokenCredential().credential),
                configuration: self.configuration(pki.transport), eventLoop: Live.group.next())
            let answer = try? await anonymous.send(Live.request(5))
            await anonymous.close()
            #expect(answer == nil, "nghttpd must refuse a client without a certificate")
        } catch let error as APNsError {
            #expect(error.code == .connectionFailed)
        }
    }

    @Test("certificate authentication: a server verifying the client certificate against the CA")
    func clientCertificateVerified() async throws {
        let pki = try TestPKI()
        defer { pki.remove() }
        try await Live.withScriptedServer(.init(), tls: try pki.serverContext(requireClientCertificate: true)) {
            server in
            let connection = try await APNsConnection.connect(
                to: Live.environment(port: server.port), credential: .certificate(pki.clientCredential),
                configuration: self.configuration(pki.transport), eventLoop: Live.group.next())
            #expect(try await connection.send(Live.request(1)).status == 200)
            await connection.close()
            // A certificate from another CA is refused in the handshake.
            let stranger = try TestPKI()
            defer { stranger.remove() }
            await #expect(throws: APNsError.self) {
                let connection = try await APNsConnection.connect(
                    to: Live.environment(port: server.port), credential: .certificate(stranger.clientCredential),
                    configuration: self.configuration(pki.transport), eventLoop: Live.group.next())
                defer { Task { await connection.close() } }
                _ = try await connection.send(Live.request(1))
            }
        }
    }

    @Test("token authentication: the server verifies the ES256 JWT; one token serves every request")
    func tokenAuthentication() async throws {
        let pki = try TestPKI()
        defer { pki.remove() }
        let (credential, publicKey) = try Live.tokenCredential()
        var script = ScriptedAPNsServer.Script()
        script.tokenKey = (publicKey, Live.keyID, Live.teamID)
        try await Live.withScriptedServer(script, tls: try pki.serverContext(requireClientCertificate: false)) {
            server in
            let provider = try APNsTokenProvider(credential: credential)
            let connection = try await APNsConnection.connect(
                to: Live.environment(port: server.port), credential: credential, tokenProvider: provider,
                configuration: self.configuration(pki.transport), eventLoop: Live.group.next())
            let apnsID = APNsID.random()
            let first = try await connection.send(Live.request(1, apnsID: apnsID))
            #expect(first.status == 200)
            #expect(first.apnsID == apnsID)
            for number in 2...5 { #expect(try await connection.send(Live.request(number)).status == 200) }
            await connection.close()
            #expect(server.snapshot.distinctJWTs.count == 1)

            // A token signed with another key is refused with APNs's reason.
            let impostor = try await APNsConnection.connect(
                to: Live.environment(port: server.port), credential: .token(Live.tokenCredential().credential),
                configuration: self.configuration(pki.transport), eventLoop: Live.group.next())
            let refused = try await impostor.send(Live.request(1))
            await impostor.close()
            #expect(refused.status == 403)
            #expect(refused.reason == .invalidProviderToken)
        }
    }

    @Test("h2c: cleartext HTTP/2 with prior knowledge for local tests")
    func plaintext() async throws {
        try await Live.withScriptedServer(.init(), tls: nil) { server in
            let connection = try await APNsConnection.connect(
                to: Live.environment(port: server.port), credential: .token(Live.tokenCredential().credential),
                configuration: self.configuration(.plaintext), eventLoop: Live.group.next())
            #expect(try await connection.send(Live.request(1)).status == 200)
            await connection.close()
        }
    }

    @Test("a request without an answer times out; the connection keeps serving others")
    func requestTimeout() async throws {
        var script = ScriptedAPNsServer.Script()
        script.silentTokens = [Live.token(13)]
        // Loops of its own: the throughput tests running alongside must not delay the answers.
        try await Live.withOwnGroup { group in
            try await Live.withScriptedServer(script, tls: nil, group: group) { server in
                var configuration = self.configuration(.plaintext)
                configuration.requestTimeout = .seconds(1)
                let connection = try await APNsConnection.connect(
                    to: Live.environment(port: server.port), credential: .token(Live.tokenCredential().credential),
                    configuration: configuration, eventLoop: group.next())
                await #expect {
                    _ = try await connection.send(Live.request(13))
                } throws: { error in
                    (error as? APNsError)?.code == .timedOut
                }
                #expect(try await connection.send(Live.request(14)).status == 200)
                await connection.close()
            }
        }
    }

    @Test("an idle connection sends PINGs, and stays up while the server answers them")
    func keepalive() async throws {
        try await Live.withOwnGroup { group in
            try await Live.withScriptedServer(.init(), tls: nil, group: group) { server in
                var configuration = self.configuration(.plaintext)
                configuration.keepaliveInterval = .milliseconds(100)
                configuration.keepaliveTimeout = .seconds(1)
                let connection = try await APNsConnection.connect(
                    to: Live.environment(port: server.port), credential: .token(Live.tokenCredential().credential),
                    configuration: configuration, eventLoop: group.next())
                // The idle connection stays up across many intervals and past the PING timeout
                // (a PING whose ACK went unnoticed would have closed it by then).
                try await Task.sleep(for: .milliseconds(2_500))
                #expect(try await connection.send(Live.request(1)).status == 200)
                await connection.close()
            }
        }
    }
}
