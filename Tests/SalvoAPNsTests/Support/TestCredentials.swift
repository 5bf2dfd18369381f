import Crypto
import Foundation
import SwiftASN1
import X509

/// Key and certificate material generated at test time, written to a temporary directory that
/// the test removes in `defer`.
struct TestCredentials {
    static let bundleID = "com.example.salvo"
    static let keyID = "ABCDE12345"
    static let teamID = "TEAM123456"

    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("salvo-apns-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }

    func path(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }

    /// Writes a fresh P-256 key as Apple ships it (`AuthKey_<KEYID>.p8`, PKCS#8 PEM).
    func writeP8(keyID: String = TestCredentials.keyID) throws -> (path: String, key: P256.Signing.PrivateKey) {
        let key = P256.Signing.PrivateKey()
        let path = path("AuthKey_\(keyID).p8")
        try key.pemRepresentation.write(toFile: path, atomically: true, encoding: .utf8)
        return (path, key)
    }

    /// Writes a self-signed certificate shaped like an APNs client certificate (bundle id in the
    /// subject UID) and its key, as PEM files.
    func writeCertificate(
        bundleID: String? = TestCredentials.bundleID
    ) throws -> (certificatePath: String, keyPath: String) {
        let key = P256.Signing.PrivateKey()
        let certificateKey = Certificate.PrivateKey(key)
        var attributes: [RelativeDistinguishedName] = []
        if let bundleID {
            attributes.append(
                RelativeDistinguishedName(
                    RelativeDistinguishedName.Attribute(
                        type: [0, 9, 2342, 19_200_300, 100, 1, 1], utf8String: bundleID)
                ))
        }
        attributes.append(
            RelativeDistinguishedName(
                RelativeDistinguishedName.Attribute(
                    type: [2, 5, 4, 3], utf8String: "Apple Push Services: \(bundleID ?? "test")")
            ))
        let name = DistinguishedName(attributes)
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: certificateKey.publicKey,
            notValidBefore: Date().addingTimeInterval(-3600),
            notValidAfter: Date().addingTimeInterval(3600),
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: Certificate.Extensions(),
            issuerPrivateKey: certificateKey
        )
        let certificatePath = path("cert.pem")
        let keyPath = path("key.pem")
        try certificate.serializeAsPEM().pemString.write(toFile: certificatePath, atomically: true, encoding: .utf8)
        try key.pemRepresentation.write(toFile: keyPath, atomically: true, encoding: .utf8)
        return (certificatePath, keyPath)
    }

    /// Bundles a PEM certificate and key into PKCS#12 with the openssl CLI. Legacy (SHA-1/3DES)
    /// algorithms are requested because that is what Keychain Access exports.
    func writePKCS12(certificatePath: String, keyPath: String, password: String) throws -> String {
        let output = path("cert.p12")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = [
            "pkcs12", "-export", "-in", certificatePath, "-inkey", keyPath, "-out", output,
            "-passout", "pass:\(password)",
            "-keypbe", "PBE-SHA1-3DES", "-certpbe", "PBE-SHA1-3DES", "-macalg", "sha1",
        ]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw OpenSSLFailed(status: process.terminationStatus)
        }
        return output
    }

    struct OpenSSLFailed: Error {
        var status: Int32
    }
}
