import Crypto
import Foundation
import NIOCore
import NIOEmbedded
import NIOPosix
import NIOSSL
import SwiftASN1
import Testing
import X509

@testable import SalvoAPNs

/// The TLS identity rule: a DNS host is matched by DNS entries of the certificate only;
/// and h2c goes to loopback addresses only unless allowed. Certificates are generated here; the
/// same rule over real TLS against the mock is in SalvoCLITests (`TLSIdentityTests`).
@Suite("Server identity and cleartext policy")
struct APNsServerIdentityTests {
    /// A leaf signed by a throwaway CA, with `commonName` and `names` as its subjectAltName.
    static func certificate(commonName: String, names: [GeneralName]) throws -> NIOSSLCertificate {
        let caKey = P256.Signing.PrivateKey()
        let caName = try DistinguishedName { CommonName("Identity Test CA") }
        let key = P256.Signing.PrivateKey()
        let leaf = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: Date() - 60, notValidAfter: Date() + 3_600, issuer: caName,
            subject: try DistinguishedName { CommonName(commonName) }, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                try ExtendedKeyUsage([.serverAuth])
                if !names.isEmpty { SubjectAlternativeNames(names) }
            },
            issuerPrivateKey: .init(caKey))
        return try NIOSSLCertificate(bytes: try leaf.serializeAsPEM().derBytes, format: .der)
    }

    static let loopbackIP = GeneralName.ipAddress(.init(contentBytes: [127, 0, 0, 1]))

    @Test("an attacker's certificate (CN=attacker.example, only IP:127.0.0.1) is refused for localhost")
    func ipOnlyCertificateRefusedForDNSHost() throws {
        let certificate = try Self.certificate(commonName: "attacker.example", names: [Self.loopbackIP])
        let identity = try #require(APNsServerIdentity(serverName: "localhost"))
        let error = #expect(throws: APNsError.self) { try identity.verify(certificate) }
        #expect(error?.code == .connectionFailed)
        #expect(
            error?.message.contains("not valid for localhost: it lists no DNS name") == true,
            "\(String(describing: error))")
        // A common name alone is no identity either.
        let commonNameOnly = try Self.certificate(commonName: "localhost", names: [])
        #expect(throws: APNsError.self) { try identity.verify(commonNameOnly) }
    }

    @Test("a DNS entry matching the host is accepted, beside an IP entry or through a wildcard")
    func dnsCertificateAccepted() throws {
        let both = try Self.certificate(commonName: "x", names: [.dnsName("localhost"), Self.loopbackIP])
        try #require(APNsServerIdentity(serverName: "LocalHost.")).verify(both)
        let wildcard = try Self.certificate(commonName: "x", names: [.dnsName("*.push.apple.com")])
        try #require(APNsServerIdentity(serverName: "api.push.apple.com")).verify(wildcard)
        let other = try Self.certificate(commonName: "api.push.apple.com", names: [.dnsName("attacker.example")])
        let error = #expect(throws: APNsError.self) {
            try APNsServerIdentity(serverName: "api.push.apple.com")?.verify(other)
        }
        #expect(error?.message.contains("it lists DNS names attacker.example") == true)
    }

    @Test("an IP-literal host needs no DNS entry: NIOSSL matches IP entries against the address connected to")
    func ipLiteralHostsAreLeftToNIOSSL() {
        for host in ["127.0.0.1", "::1", "192.0.2.7"] {
            #expect(APNsServerIdentity(serverName: host) == nil, "\(host)")
        }
        #expect(APNsServerIdentity(serverName: nil) == nil)
        #expect(APNsServerIdentity(serverName: "api.push.apple.com")?.dnsName == "api.push.apple.com")
    }

    @Test(
        "wildcards stand for exactly one whole left-most label",
        arguments: [
            ("api.push.apple.com", "api.push.apple.com", true), ("API.Push.Apple.COM.", "api.push.apple.com", true),
            ("*.push.apple.com", "api.push.apple.com", true), ("*.push.apple.com", "push.apple.com", false),
            ("*.push.apple.com", "a.b.push.apple.com", false), ("*.com", "apple.com", false),
            ("a*.apple.com", "api.apple.com", false),
            ("api.*.apple.com", "api.push.apple.com", false), ("*", "localhost", false), ("", "localhost", false),
            ("localhost", "localhost.example", false), ("*.*.apple.com", "a.b.apple.com", false),
        ])
    func wildcardMatching(_ pattern: String, _ host: String, _ expected: Bool) {
        #expect(APNsServerIdentity.matches(pattern: pattern, dnsName: APNsServerIdentity.normalized(host)) == expected)
    }

    @Test(
        "loopback addresses",
        arguments: [
            ("127.0.0.1", true), ("127.255.0.9", true), ("::1", true), ("[::1]", true), ("localhost", true),
            ("LOCALHOST.", true),
            ("::ffff:127.0.0.1", true), ("128.0.0.1", false), ("10.0.0.1", false), ("::2", false), ("mock", false),
            ("localhost.example", false), ("0.0.0.0", false), ("", false),
        ])
    func loopback(_ host: String, _ expected: Bool) {
        #expect(APNsPlaintextPolicy.isLoopback(host: host) == expected)
    }

    @Test("h2c to a host that is not a loopback address is refused before anything is sent")
    func remoteCleartextRefused() async throws {
        var configuration = APNsConnection.Configuration()
        configuration.transport = .plaintext
        let credential = APNsCredential.token(
            try APNsTokenCredential(keyID: "ABCDE12345", teamID: "TEAM123456", privateKey: .init()))
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        // 192.0.2.0/24 is TEST-NET-1: refused in the factory, so no packet is ever sent there.
        let environment = APNsEnvironment.custom(host: "192.0.2.1", port: 2197, behavesAs: .production)
        let error = await #expect(throws: APNsError.self) {
            _ = try await APNsConnection.connect(
                to: environment, credential: credential, configuration: configuration, eventLoop: eventLoop)
        }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message.contains("cleartext HTTP/2 (h2c) to 192.0.2.1 is refused") == true)
    }

    @Test("an h2c connection that reached an address other than loopback goes no further than TCP")
    func loopbackPeerChecked() throws {
        let remote = EmbeddedChannel()
        let recorder = ActiveRecorder()
        try remote.pipeline.syncOperations.addHandlers([APNsPlaintextPolicy.LoopbackPeerHandler(), recorder])
        try remote.connect(to: SocketAddress(ipAddress: "192.0.2.1", port: 2197)).wait()
        #expect(!recorder.becameActive)
        #expect(recorder.errors.first?.contains("192.0.2.1") == true)
        #expect(!remote.isActive)

        let local = EmbeddedChannel()
        let localRecorder = ActiveRecorder()
        try local.pipeline.syncOperations.addHandlers([APNsPlaintextPolicy.LoopbackPeerHandler(), localRecorder])
        try local.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 2197)).wait()
        #expect(localRecorder.becameActive)
        #expect(localRecorder.errors.isEmpty)
        #expect(throws: (any Error).self) {
            try local.pipeline.syncOperations.handler(type: APNsPlaintextPolicy.LoopbackPeerHandler.self)
        }
        _ = try? local.finish()
    }

    /// Records whether channelActive got through and which errors were raised.
    final class ActiveRecorder: ChannelInboundHandler {
        typealias InboundIn = NIOAny
        var becameActive = false
        var errors: [String] = []

        func channelActive(context: ChannelHandlerContext) { becameActive = true }
        func errorCaught(context: ChannelHandlerContext, error: any Error) { errors.append("\(error)") }
    }
}
