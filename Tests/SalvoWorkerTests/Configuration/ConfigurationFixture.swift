import Crypto
import Foundation
import SwiftASN1
import X509

/// A temporary directory holding the key, certificate and CA files a worker configuration
/// points at, generated for each test and removed by it (`defer { fixture.remove() }`).
///
/// The layout mirrors the relative paths of `config/worker.example.yaml` (`keys/`, `certs/`,
/// `tls/`), so the example is loaded with those paths anchored at ``directory``.
struct ConfigurationFixture {
    static let keyID = "ABCDE12345"
    static let teamID = "TEAM123456"
    static let chatBundleID = "com.example.chat"
    static let p12Password = "correct horse battery staple"

    let directory: String
    /// The PEM text of the generated `.p8` and certificate key, to prove they never leak.
    let p8PEM: String
    let certificateKeyPEM: String

    var p8Path: String { "\(directory)/keys/AuthKey_\(Self.keyID).p8" }
    var certificatePath: String { "\(directory)/certs/chat.pem" }
    var certificateKeyPath: String { "\(directory)/certs/chat.key" }
    var p12Path: String { "\(directory)/certs/chat.p12" }
    var caPath: String { "\(directory)/tls/mock-ca.pem" }

    init() throws {
        directory =
            FileManager.default.temporaryDirectory.appendingPathComponent("salvo-config-\(UUID().uuidString)").path
        for folder in ["keys", "certs", "tls"] {
            try FileManager.default.createDirectory(atPath: "\(directory)/\(folder)", withIntermediateDirectories: true)
        }
        p8PEM = P256.Signing.PrivateKey().pemRepresentation
        try p8PEM.write(toFile: "\(directory)/keys/AuthKey_\(Self.keyID).p8", atomically: true, encoding: .utf8)

        let (certificatePEM, keyPEM) = try Self.selfSignedCertificate(
            commonName: "Apple Push Services: chat", userID: Self.chatBundleID)
        certificateKeyPEM = keyPEM
        try certificatePEM.write(toFile: "\(directory)/certs/chat.pem", atomically: true, encoding: .utf8)
        try keyPEM.write(toFile: "\(directory)/certs/chat.key", atomically: true, encoding: .utf8)
        let (caPEM, _) = try Self.selfSignedCertificate(commonName: "Salvo test CA", userID: nil)
        try caPEM.write(toFile: "\(directory)/tls/mock-ca.pem", atomically: true, encoding: .utf8)
        // The name `salvo mock-apns --generate-tls` gives it, which the example uses.
        try caPEM.write(toFile: "\(directory)/tls/ca.pem", atomically: true, encoding: .utf8)
        try Self.openssl([
            "pkcs12", "-export", "-in", "\(directory)/certs/chat.pem", "-inkey", "\(directory)/certs/chat.key",
            "-out", "\(directory)/certs/chat.p12", "-passout", "pass:\(Self.p12Password)",
            // Keychain Access exports the legacy algorithms; BoringSSL reads them.
            "-keypbe", "PBE-SHA1-3DES", "-certpbe", "PBE-SHA1-3DES", "-macalg", "sha1",
        ])
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Writes `text` to `name` inside the directory and returns its path.
    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        let path = "\(directory)/\(name)"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Writes a fresh `.p8` key at `name` (relative to the directory).
    func writeP8(_ name: String) throws {
        try write(name, P256.Signing.PrivateKey().pemRepresentation)
    }

    /// Writes a self-signed certificate (bundle id in its UID, when given) and its key.
    func writeCertificate(_ name: String, key keyName: String, userID: String?) throws {
        let (certificate, key) = try Self.selfSignedCertificate(commonName: "Salvo test", userID: userID)
        try write(name, certificate)
        try write(keyName, key)
    }

    /// A deployment's configuration file (`docker/worker.yaml`, …) with `prefix` pointing into
    /// this directory.
    func repositoryYAML(_ relativePath: String, replacing prefix: String) throws -> String {
        try String(contentsOfFile: Self.repositoryFile(relativePath), encoding: .utf8)
            .replacingOccurrences(of: prefix, with: "\(directory)/")
    }

    /// `config/worker.example.yaml` with its relative `keys/`, `certs/` and `tls/` paths pointing
    /// into this directory.
    func exampleYAML() throws -> String {
        var yaml = try String(contentsOfFile: Self.repositoryFile("config/worker.example.yaml"), encoding: .utf8)
        for folder in ["keys", "certs", "tls"] {
            yaml = yaml.replacingOccurrences(of: ": \(folder)/", with: ": \(directory)/\(folder)/")
        }
        return yaml
    }

    /// The smallest valid file: one broker, one token app. `$DIR` in `extra` and in the result is
    /// the fixture directory.
    func minimalYAML(app extra: String = "", top: String = "", kafka: String = "") -> String {
        """
        kafka:
          brokers: ["localhost:9092"]
          \(kafka)
        apps:
          news:
            bundle_id: com.example.news
            credential:
              token: {key_file: \(p8Path), team_id: \(Self.teamID)}
        \(extra)
        \(top)
        """.replacingOccurrences(of: "$DIR", with: directory)
    }

    static func repositoryFile(_ relativePath: String) -> String {
        // Tests/SalvoWorkerTests/Configuration/<this file> → the repository root.
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(relativePath).path
    }

    private static func selfSignedCertificate(
        commonName: String, userID: String?
    ) throws -> (certificate: String, key: String) {
        let key = P256.Signing.PrivateKey()
        let signingKey = Certificate.PrivateKey(key)
        var names = [
            RelativeDistinguishedName(RelativeDistinguishedName.Attribute(type: [2, 5, 4, 3], utf8String: commonName))
        ]
        if let userID {
            // 0.9.2342.19200300.100.1.1: UID, where Apple puts the bundle id.
            names.append(
                RelativeDistinguishedName(
                    RelativeDistinguishedName.Attribute(type: [0, 9, 2342, 19_200_300, 100, 1, 1], utf8String: userID)))
        }
        let subject = DistinguishedName(names)
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: signingKey.publicKey,
            notValidBefore: Date().addingTimeInterval(-60), notValidAfter: Date().addingTimeInterval(3_600),
            issuer: subject, subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
            },
            issuerPrivateKey: signingKey)
        return (try certificate.serializeAsPEM().pemString, key.pemRepresentation)
    }

    private static func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw OpenSSLFailed(arguments: arguments) }
    }

    struct OpenSSLFailed: Error {
        var arguments: [String]
    }
}
