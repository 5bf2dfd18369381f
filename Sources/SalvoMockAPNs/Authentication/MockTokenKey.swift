import Crypto

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A provider-token signing key the mock trusts, as Apple holds it: the key id, the team id and
/// the public half. Requests in token mode must carry a JWT signed by one of these keys.
///
/// The key is stored as its X9.63 bytes because swift-crypto 3.x does not mark
/// `P256.Signing.PublicKey` Sendable.
public struct MockTokenKey: Sendable, Hashable, CustomStringConvertible {
    public let keyID: String
    public let teamID: String
    private let publicKeyBytes: [UInt8]

    public init(keyID: String, teamID: String, publicKey: P256.Signing.PublicKey) {
        self.keyID = keyID
        self.teamID = teamID
        self.publicKeyBytes = Array(publicKey.x963Representation)
    }

    /// Reads the key from PEM text holding either the public key (`BEGIN PUBLIC KEY`) or Apple's
    /// `.p8` private key (`BEGIN PRIVATE KEY`), whose public half is taken.
    public init(keyID: String, teamID: String, pem: String) throws(MockAPNsError) {
        if let publicKey = try? P256.Signing.PublicKey(pemRepresentation: pem) {
            self.init(keyID: keyID, teamID: teamID, publicKey: publicKey)
            return
        }
        do {
            let privateKey = try P256.Signing.PrivateKey(pemRepresentation: pem)
            self.init(keyID: keyID, teamID: teamID, publicKey: privateKey.publicKey)
        } catch {
            throw MockAPNsError(
                .invalidKeyMaterial, "the PEM for key \(keyID) is neither a P-256 public key nor a .p8 private key",
                underlying: "\(error)")
        }
    }

    /// Parses the command-line form `KEY_ID:TEAM_ID:path-to-public-or-p8.pem`.
    public init(argument: String) throws(MockAPNsError) {
        let parts = argument.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty, !parts[2].isEmpty else {
            throw MockAPNsError(.invalidConfiguration, "--token-key wants KEY_ID:TEAM_ID:path.pem, got \"\(argument)\"")
        }
        let path = String(parts[2])
        let pem: String
        do {
            pem = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw MockAPNsError(.fileUnreadable, "cannot read token key file \(path)", underlying: "\(error)")
        }
        try self.init(keyID: String(parts[0]), teamID: String(parts[1]), pem: pem)
    }

    public var publicKey: P256.Signing.PublicKey {
        // The bytes came from a valid key in init, so rebuilding cannot fail.
        try! P256.Signing.PublicKey(x963Representation: self.publicKeyBytes)
    }

    public var description: String { "MockTokenKey(keyID: \(self.keyID), teamID: \(self.teamID))" }
}
