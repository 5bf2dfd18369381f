import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// A CA, a server certificate for localhost (and 127.0.0.1), and an APNs-style client
/// certificate (bundle id in the subject UID), all P-256 and generated at test time — no key is
/// ever committed. The PEM files that independent servers (nghttpd) read are written into a
/// temporary directory that `remove()` deletes.
public struct TestPKI {
    public static let bundleID = "com.example.salvo"

    public let directory: URL
    public let caCertificate: NIOSSLCertificate
    public let serverCertificate: NIOSSLCertificate
    public let serverKey: NIOSSLPrivateKey
    public let clientCertificate: NIOSSLCertificate
    public let clientKey: NIOSSLPrivateKey

    /// - Parameter serverIPAddress: Whether the server certificate also names 127.0.0.1.
    public init(serverIPAddress: Bool = true) throws {
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

        func issue(
            _ subject: DistinguishedName, usage: ExtendedKeyUsage.Usage, names: [GeneralName]
        ) throws -> (
            Certificate, P256.Signing.PrivateKey
        ) {
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
                RelativeDistinguishedName.Attribute(
                    type: [0, 9, 2342, 19_200_300, 100, 1, 1], utf8String: Self.bundleID)),
            RelativeDistinguishedName(
                RelativeDistinguishedName.Attribute(
                    type: [2, 5, 4, 3], utf8String: "Apple Push Services: \(Self.bundleID)")),
        ])
        let (client, clientKey) = try issue(clientSubject, usage: .clientAuth, names: [])

        try Self.write(ca.serializeAsPEM().pemString, to: self.directory.appendingPathComponent("ca.pem"))
        try Self.write(server.serializeAsPEM().pemString, to: self.directory.appendingPathComponent("server.pem"))
        try Self.write(serverKey.pemRepresentation, to: self.directory.appendingPathComponent("server-key.pem"))
        self.caCertificate = try NIOSSLCertificate(bytes: Array(ca.serializeAsPEM().pemString.utf8), format: .pem)
        self.serverCertificate = try NIOSSLCertificate(
            bytes: Array(server.serializeAsPEM().pemString.utf8), format: .pem)
        self.serverKey = try NIOSSLPrivateKey(bytes: Array(serverKey.pemRepresentation.utf8), format: .pem)
        self.clientCertificate = try NIOSSLCertificate(
            bytes: Array(client.serializeAsPEM().pemString.utf8), format: .pem)
        self.clientKey = try NIOSSLPrivateKey(bytes: Array(clientKey.pemRepresentation.utf8), format: .pem)
    }

    /// The CA certificate in PEM, for clients that read their trust roots from a file
    /// (librdkafka's `ssl.ca.location`).
    public var caCertificatePath: String { self.directory.appendingPathComponent("ca.pem").path }
    public var serverCertificatePath: String { self.directory.appendingPathComponent("server.pem").path }
    public var serverKeyPath: String { self.directory.appendingPathComponent("server-key.pem").path }

    /// A TLS server context presenting the server certificate, ALPN h2, optionally requiring a
    /// client certificate issued by this CA.
    public func serverContext(requireClientCertificate: Bool = false) throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(self.serverCertificate)], privateKey: .privateKey(self.serverKey))
        configuration.applicationProtocols = ["h2"]
        if requireClientCertificate {
            configuration.certificateVerification = .noHostnameVerification
            configuration.trustRoots = .certificates([self.caCertificate])
        }
        return try NIOSSLContext(configuration: configuration)
    }

    /// A TLS client context trusting only this CA, ALPN h2.
    public func clientContext() throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.trustRoots = .certificates([self.caCertificate])
        configuration.applicationProtocols = ["h2"]
        return try NIOSSLContext(configuration: configuration)
    }

    public func remove() {
        try? FileManager.default.removeItem(at: self.directory)
    }

    private static func write(_ text: String, to url: URL) throws {
        try text.write(to: url, atomically: true, encoding: .utf8)
    }
}
