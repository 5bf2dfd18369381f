import Crypto
import Foundation
import NIOSSL
import SalvoMockAPNs
import X509

/// A CA and a server certificate for 127.0.0.1, generated per test, and a provider-token key.
struct EnginePKI {
    let caCertificate: NIOSSLCertificate
    let serverTLS: MockAPNsServer.TLS
    let signingKey = P256.Signing.PrivateKey()

    init() throws {
        let now = Date()
        let caKey = P256.Signing.PrivateKey()
        let caName = try DistinguishedName { CommonName("Salvo Worker Test CA") }
        let ca = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(caKey.publicKey),
            notValidBefore: now - 60, notValidAfter: now + 3600, issuer: caName, subject: caName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true))
            },
            issuerPrivateKey: .init(caKey))
        let serverKey = P256.Signing.PrivateKey()
        let server = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(serverKey.publicKey),
            notValidBefore: now - 60, notValidAfter: now + 3600, issuer: caName,
            subject: try DistinguishedName { CommonName("localhost") },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([.dnsName("localhost"), .ipAddress(.init(contentBytes: [127, 0, 0, 1]))])
            },
            issuerPrivateKey: .init(caKey))
        caCertificate = try NIOSSLCertificate(bytes: Array(try ca.serializeAsPEM().pemString.utf8), format: .pem)
        serverTLS = MockAPNsServer.TLS(
            certificateChain: [try NIOSSLCertificate(bytes: Array(try server.serializeAsPEM().pemString.utf8), format: .pem)],
            privateKey: try NIOSSLPrivateKey(bytes: Array(serverKey.pemRepresentation.utf8), format: .pem))
    }
}
