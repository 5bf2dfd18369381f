import SalvoAPNs

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension MockTLSMaterial {
    /// File names ``write(to:)`` uses inside its directory.
    public enum FileName {
        public static let caCertificate = "ca.pem"
        public static let caPrivateKey = "ca-key.pem"
        public static let serverCertificate = "server.pem"
        public static let serverPrivateKey = "server-key.pem"
        public static let clientCertificate = "client.pem"
        public static let clientPrivateKey = "client-key.pem"
        /// A provider token signed at write time, valid for an hour (for curl and h2load).
        public static let providerToken = "provider-token.jwt"
        /// `AuthKey_<KEYID>.p8`, Apple's download name.
        public static func tokenKey(keyID: String) -> String { "AuthKey_\(keyID).p8" }
    }

    /// Writes every file into `directory` (created if missing; private keys get mode 0600) and
    /// returns the `--token-key` argument that trusts the token key.
    @discardableResult
    public func write(to directory: String) throws(MockAPNsError) -> String {
        let manager = FileManager.default
        let token: APNsAuthorization
        do {
            token = try APNsJWTSigner(credential: self.tokenCredential()).sign(
                issuedAt: Int64(Date().timeIntervalSince1970))
        } catch {
            throw MockAPNsError(.invalidKeyMaterial, "cannot sign a provider token: \(error)")
        }
        let keyFile = FileName.tokenKey(keyID: self.tokenKeyID)
        let files: [(String, String, Bool)] = [
            (FileName.caCertificate, self.caCertificatePEM, false),
            (FileName.caPrivateKey, self.caPrivateKeyPEM, true),
            (FileName.serverCertificate, self.serverCertificatePEM, false),
            (FileName.serverPrivateKey, self.serverPrivateKeyPEM, true),
            (FileName.clientCertificate, self.clientCertificatePEM, false),
            (FileName.clientPrivateKey, self.clientPrivateKeyPEM, true),
            (keyFile, self.tokenPrivateKeyPEM, true),
            (FileName.providerToken, token.jwt + "\n", true),
        ]
        do {
            try manager.createDirectory(atPath: directory, withIntermediateDirectories: true)
            for (name, text, isSecret) in files {
                let path = Self.join(directory, name)
                try text.write(toFile: path, atomically: true, encoding: .utf8)
                if isSecret { try manager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path) }
            }
        } catch {
            throw MockAPNsError(.fileUnreadable, "cannot write TLS material to \(directory)", underlying: "\(error)")
        }
        return "\(self.tokenKeyID):\(self.tokenTeamID):\(Self.join(directory, keyFile))"
    }

    private static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }
}
