import NIOSSL
import SwiftASN1
import X509

/// Certificate authentication: an APNs client certificate (one app, or a "universal" certificate
/// covering its VoIP/complication topics) with its private key, presented in the TLS handshake.
///
/// Apple puts the app's bundle id in the certificate subject's UID attribute; it is read at load
/// time so the default topic need not be configured twice. The private key never appears in
/// `description`, logs or errors.
public struct APNsCertificateCredential: Sendable, Hashable, CustomStringConvertible {
    /// The leaf certificate first, then any intermediates.
    public let certificateChain: [NIOSSLCertificate]
    public let privateKey: NIOSSLPrivateKey
    /// The bundle id: the configured one, else the certificate subject's UID, else nil.
    public let bundleID: String?
    /// The bundle id as the certificate states it (subject UID), for checking the configuration.
    public let certificateBundleID: String?

    /// - Parameter bundleID: Overrides the certificate's UID (Default: nil, use the certificate's).
    public init(
        certificateChain: [NIOSSLCertificate], privateKey: NIOSSLPrivateKey, bundleID: String? = nil
    ) throws(APNsError) {
        guard let leaf = certificateChain.first else {
            throw APNsError(code: .invalidCredential, message: "the certificate chain is empty")
        }
        self.certificateChain = certificateChain
        self.privateKey = privateKey
        self.certificateBundleID = try Self.subjectUserID(of: leaf)
        self.bundleID = bundleID ?? certificateBundleID
    }

    /// Loads a PKCS#12 bundle (`.p12`, as Keychain Access exports it).
    public static func pkcs12(path: String, password: String?, bundleID: String? = nil) throws(APNsError) -> Self {
        let bundle: NIOSSLPKCS12Bundle
        do {
            bundle = try NIOSSLPKCS12Bundle(file: path, passphrase: password.map { Array($0.utf8) })
        } catch {
            throw APNsError(
                code: .invalidCredential,
                message: "cannot open PKCS#12 bundle \(path) (wrong password or not PKCS#12)",
                underlying: String(describing: error)
            )
        }
        return try Self(certificateChain: bundle.certificateChain, privateKey: bundle.privateKey, bundleID: bundleID)
    }

    /// Loads a PEM certificate chain and a PEM private key (optionally encrypted with `keyPassword`).
    public static func pem(
        certificatePath: String,
        privateKeyPath: String,
        keyPassword: String? = nil,
        bundleID: String? = nil
    ) throws(APNsError) -> Self {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMBytes(CredentialFile.readBytes(certificatePath))
        } catch let error as APNsError {
            throw error
        } catch {
            throw APNsError(
                code: .invalidCredential,
                message: "\(certificatePath) holds no PEM certificate",
                underlying: String(describing: error)
            )
        }
        let keyBytes = try CredentialFile.readBytes(privateKeyPath)
        let key: NIOSSLPrivateKey
        do {
            // Always hand BoringSSL a passphrase callback: without one it would prompt on stdin
            // for an encrypted key and block the process.
            let password = Array((keyPassword ?? "").utf8)
            key = try NIOSSLPrivateKey(bytes: keyBytes, format: .pem) { setPassphrase in setPassphrase(password) }
        } catch {
            throw APNsError(
                code: .invalidCredential,
                message: "\(privateKeyPath) holds no usable PEM private key (wrong password?)",
                underlying: String(describing: error)
            )
        }
        return try Self(certificateChain: chain, privateKey: key, bundleID: bundleID)
    }

    public var description: String {
        "APNsCertificateCredential(bundleID: \(bundleID ?? "unknown"), chain: \(certificateChain.count) certificate(s))"
    }

    /// The subject's UID attribute (the bundle id in Apple's push certificates), or nil when the
    /// certificate has none. Public so a server (the mock APNs) reads a client certificate the
    /// same way a sender reads its own.
    public static func subjectUserID(of certificate: NIOSSLCertificate) throws(APNsError) -> String? {
        let parsed: Certificate
        do {
            parsed = try Certificate(derEncoded: certificate.toDERBytes())
        } catch {
            throw APNsError(
                code: .invalidCredential,
                message: "the certificate cannot be parsed as X.509",
                underlying: String(describing: error)
            )
        }
        for relativeName in parsed.subject {
            // 0.9.2342.19200300.100.1.1 is the `UID` (userId, RFC 4519) attribute Apple fills with
            // the bundle id.
            for attribute in relativeName where attribute.type == [0, 9, 2342, 19_200_300, 100, 1, 1] {
                return String(attribute.value)
            }
        }
        return nil
    }
}
