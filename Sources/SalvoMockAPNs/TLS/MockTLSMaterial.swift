import Crypto
import NIOSSL
import SalvoAPNs
import SwiftASN1
import X509

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Everything needed to talk to the mock the way one talks to Apple, generated fresh (P-256):
/// a test CA, a server certificate for `localhost` and `127.0.0.1`, a client certificate shaped
/// like an APNs push certificate (the topic in the subject's UID, 0.9.2342.19200300.100.1.1), and
/// a provider-token key. Tests call ``generate(topic:)``; `salvo mock-apns --generate-tls DIR`
/// writes the same material to files (``write(to:)``).
public struct MockTLSMaterial: Sendable {
    public var topic: String
    public var caCertificatePEM: String
    public var caPrivateKeyPEM: String
    public var serverCertificatePEM: String
    public var serverPrivateKeyPEM: String
    public var clientCertificatePEM: String
    public var clientPrivateKeyPEM: String
    /// The provider-token key (`AuthKey_<keyID>.p8`) and its ids.
    public var tokenKeyID: String
    public var tokenTeamID: String
    public var tokenPrivateKeyPEM: String

    /// Fresh material.
    /// - Parameters:
    ///   - topic: The bundle id in the client certificate. Default: "com.example.salvo".
    ///   - hosts: DNS names and IP addresses the server certificate is valid for.
    ///     Default: localhost and 127.0.0.1.
    ///   - validityDays: Default: 30.
    ///   - tokenKeyID: Default: "MOCKKEY001". `tokenTeamID` default: "MOCKTEAM01".
    public static func generate(
        topic: String = "com.example.salvo",
        hosts: [String] = ["localhost", "127.0.0.1"],
        validityDays: Int = 30,
        tokenKeyID: String = "MOCKKEY001",
        tokenTeamID: String = "MOCKTEAM01"
    ) throws(MockAPNsError) -> MockTLSMaterial {
        do {
            let now = Date()
            let notAfter = now + Double(validityDays) * 86_400
            let caKey = P256.Signing.PrivateKey()
            let caName = try DistinguishedName { CommonName("Salvo Mock APNs CA") }
            let ca = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(caKey.publicKey),
                notValidBefore: now - 300, notValidAfter: notAfter, issuer: caName, subject: caName,
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                    Critical(KeyUsage(keyCertSign: true))
                },
                issuerPrivateKey: .init(caKey))

            let serverKey = P256.Signing.PrivateKey()
            let server = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(serverKey.publicKey),
                notValidBefore: now - 300, notValidAfter: notAfter, issuer: caName,
                subject: try DistinguishedName { CommonName(hosts.first ?? "localhost") },
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    Critical(KeyUsage(digitalSignature: true))
                    try ExtendedKeyUsage([.serverAuth])
                    SubjectAlternativeNames(hosts.map(Self.generalName))
                },
                issuerPrivateKey: .init(caKey))

            let clientKey = P256.Signing.PrivateKey()
            let clientName = DistinguishedName([
                RelativeDistinguishedName(
                    RelativeDistinguishedName.Attribute(
                        // The UID attribute, which Apple fills with the bundle id.
                        type: [0, 9, 2342, 19_200_300, 100, 1, 1], utf8String: topic)),
                RelativeDistinguishedName(
                    RelativeDistinguishedName.Attribute(
                        type: .RDNAttributeType.commonName, utf8String: "Apple Push Services: \(topic)")),
            ])
            let client = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(clientKey.publicKey),
                notValidBefore: now - 300, notValidAfter: notAfter, issuer: caName, subject: clientName,
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    Critical(KeyUsage(digitalSignature: true))
                    try ExtendedKeyUsage([.clientAuth])
                },
                issuerPrivateKey: .init(caKey))

            return MockTLSMaterial(
                topic: topic,
                caCertificatePEM: try ca.serializeAsPEM().pemString,
                caPrivateKeyPEM: caKey.pemRepresentation,
                serverCertificatePEM: try server.serializeAsPEM().pemString,
                serverPrivateKeyPEM: serverKey.pemRepresentation,
                clientCertificatePEM: try client.serializeAsPEM().pemString,
                clientPrivateKeyPEM: clientKey.pemRepresentation,
                tokenKeyID: tokenKeyID,
                tokenTeamID: tokenTeamID,
                tokenPrivateKeyPEM: P256.Signing.PrivateKey().pemRepresentation)
        } catch {
            throw MockAPNsError(.invalidKeyMaterial, "cannot generate TLS material", underlying: "\(error)")
        }
    }

    /// An IP address when the host parses as IPv4, else a DNS name.
    private static func generalName(_ host: String) -> GeneralName {
        let octets = host.split(separator: ".", omittingEmptySubsequences: false).compactMap { UInt8($0) }
        if octets.count == 4, host.split(separator: ".", omittingEmptySubsequences: false).count == 4 {
            return .ipAddress(.init(contentBytes: ArraySlice(octets)))
        }
        return .dnsName(host)
    }

    // MARK: Using the material

    /// The server side: this certificate, and (when `acceptClientCertificates`) the test CA as
    /// the authority for client certificates.
    public func serverTLS(acceptClientCertificates: Bool = true) throws(MockAPNsError) -> MockAPNsServer.TLS {
        do {
            let chain = try NIOSSLCertificate.fromPEMBytes(Array(self.serverCertificatePEM.utf8))
            let key = try NIOSSLPrivateKey(bytes: Array(self.serverPrivateKeyPEM.utf8), format: .pem)
            let authorities =
                acceptClientCertificates ? try NIOSSLCertificate.fromPEMBytes(Array(self.caCertificatePEM.utf8)) : []
            return MockAPNsServer.TLS(
                certificateChain: chain, privateKey: key, clientCertificateAuthorities: authorities)
        } catch {
            throw MockAPNsError(
                .invalidKeyMaterial, "cannot load the generated server material", underlying: "\(error)")
        }
    }

    /// A client configuration trusting the test CA, with ALPN h2, presenting the client
    /// certificate when asked (certificate authentication).
    public func clientTLSConfiguration(presentingClientCertificate: Bool) throws(MockAPNsError) -> TLSConfiguration {
        do {
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.trustRoots = .certificates(
                try NIOSSLCertificate.fromPEMBytes(Array(self.caCertificatePEM.utf8)))
            configuration.applicationProtocols = ["h2"]
            if presentingClientCertificate {
                let chain = try NIOSSLCertificate.fromPEMBytes(Array(self.clientCertificatePEM.utf8))
                configuration.certificateChain = chain.map { .certificate($0) }
                configuration.privateKey = .privateKey(
                    try NIOSSLPrivateKey(bytes: Array(self.clientPrivateKeyPEM.utf8), format: .pem))
            }
            return configuration
        } catch {
            throw MockAPNsError(
                .invalidKeyMaterial, "cannot load the generated client material", underlying: "\(error)")
        }
    }

    /// The key the mock trusts for provider tokens (`--token-key`).
    public var tokenKey: MockTokenKey {
        // Generated above, so it parses.
        try! MockTokenKey(keyID: self.tokenKeyID, teamID: self.tokenTeamID, pem: self.tokenPrivateKeyPEM)
    }

    /// The sender's side of the token key, to sign provider tokens with (`APNsJWTSigner`).
    public func tokenCredential() throws(MockAPNsError) -> APNsTokenCredential {
        do {
            return try APNsTokenCredential(
                keyID: self.tokenKeyID, teamID: self.tokenTeamID, p8PEM: self.tokenPrivateKeyPEM)
        } catch {
            throw MockAPNsError(.invalidKeyMaterial, "the generated token key is unusable: \(error.message)")
        }
    }
}
