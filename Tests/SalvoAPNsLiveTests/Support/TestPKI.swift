import Crypto
import Foundation
import NIOSSL
import X509

@testable import SalvoAPNs

/// A CA, a server certificate for 127.0.0.1 and localhost, and an APNs-style client certificate
/// (bundle id in the subject UID), all generated at test time and written as PEM files into a
/// temporary directory that `remove()` deletes.
struct TestPKI {
    static let bundleID = "com.example.salvo"

    let directory: URL
    let caCertificate: NIOSSLCertificate
    let serverCertificate: NIOSSLCertificate
    let serverKey: NIOSSLPrivateKey
    let clientCredential: APNsCertificateCredential

    /// - Parameter serverIPAddress: Whether the server certificate also names 127.0.0.1.
    init(serverIPAddress: Bool = true) throws {
        self.directory = FileManager.default.temporaryDirectory.appendingPathComponent("salvo-pki-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true)
        let now = Date()
        let caKey = P256.Signing.PrivateKey()
        let caName = try DistinguishedName { CommonName("Salvo Test CA") }
        let ca = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(caKey.publicKey),
            notValidBefore: now - 60, notValidAfter: now + 3600, issuer: caName, subject: caName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true))
            },
            issuerPrivateKey: .init(caKey))

        func issue(_ subject: DistinguishedName, usage: ExtendedKeyUsage.Usage, names: [GeneralName]) throws -> (Certificate, P256.Signing.PrivateKey) {
            let key = P256.Signing.PrivateKey()
            let certificate = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
                notValidBefore: now - 60, notValidAfter: now + 3600, issuer: caName, subject: subject,
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    Critical(KeyUsage(digitalSignature: true))
                    try ExtendedKeyUsage([usage])
                    if !names.isEmpty { SubjectAlternativeNames(names) }
                },
                issuerPrivateKey: .init(caKey))
            return (certificate, key)
        }

        let (server, serverKey) = try issue(
            try DistinguishedName { CommonName("localhost") }, usage: .serverAuth,
            names: [.dnsName("localhost")] + (serverIPAddress ? [.ipAddress(.init(contentBytes: [127, 0, 0, 1]))] : []))
        let clientSubject = DistinguishedName([
            RelativeDistinguishedName(
                RelativeDistinguishedName.Attribute(type: [0, 9, 2342, 19_200_300, 100, 1, 1], utf8String: Self.bundleID)),
            RelativeDistinguishedName(
                RelativeDistinguishedName.Attribute(type: [2, 5, 4, 3], utf8String: "Apple Push Services: \(Self.bundleID)")),
        ])
        let (client, clientKey) = try issue(clientSubject, usage: .clientAuth, names: [])

        try Self.write(ca.serializeAsPEM().pemString, to: self.directory.appendingPathComponent("ca.pem"))
        try Self.write(server.serializeAsPEM().pemString, to: self.directory.appendingPathComponent("server.pem"))
        try Self.write(serverKey.pemRepresentation, to: self.directory.appendingPathComponent("server-key.pem"))
        self.caCertificate = try NIOSSLCertificate(bytes: Array(ca.serializeAsPEM().pemString.utf8), format: .pem)
        self.serverCertificate = try NIOSSLCertificate(bytes: Array(server.serializeAsPEM().pemString.utf8), format: .pem)
        self.serverKey = try NIOSSLPrivateKey(bytes: Array(serverKey.pemRepresentation.utf8), format: .pem)
        self.clientCredential = try APNsCertificateCredential(
            certificateChain: [NIOSSLCertificate(bytes: Array(client.serializeAsPEM().pemString.utf8), format: .pem)],
            privateKey: NIOSSLPrivateKey(bytes: Array(clientKey.pemRepresentation.utf8), format: .pem))
    }

    var serverCertificatePath: String { self.directory.appendingPathComponent("server.pem").path }
    var serverKeyPath: String { self.directory.appendingPathComponent("server-key.pem").path }

    /// A TLS server context presenting the server certificate, ALPN h2, optionally requiring a
    /// client certificate issued by this CA.
    func serverContext(requireClientCertificate: Bool) throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(self.serverCertificate)], privateKey: .privateKey(self.serverKey))
        configuration.applicationProtocols = ["h2"]
        if requireClientCertificate {
            configuration.certificateVerification = .noHostnameVerification
            configuration.trustRoots = .certificates([self.caCertificate])
        }
        return try NIOSSLContext(configuration: configuration)
    }

    /// The client transport trusting only this CA.
    var transport: APNsConnection.Transport { .tls(trustRoots: .certificates([self.caCertificate])) }

    func remove() {
        try? FileManager.default.removeItem(at: self.directory)
    }

    private static func write(_ text: String, to url: URL) throws {
        try text.write(to: url, atomically: true, encoding: .utf8)
    }
}
