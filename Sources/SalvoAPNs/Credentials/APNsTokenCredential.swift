import Crypto

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Token authentication: a P-256 signing key from Apple (`AuthKey_<KEYID>.p8`), its key id and the
/// team id. One key signs for every app of the team, in both environments.
///
/// The private key never appears in `description`, logs or errors. It is held as its 32 raw
/// bytes because swift-crypto 3.x does not mark `P256.Signing.PrivateKey` Sendable; rebuilding the
/// key object costs microseconds and happens only when a token is signed (every 30–35 minutes).
public struct APNsTokenCredential: Sendable, CustomStringConvertible {
    /// The 10-character key id (`kid`), as shown in the developer account.
    public let keyID: String
    /// The 10-character team id (`iss`).
    public let teamID: String
    private let rawPrivateKey: [UInt8]

    /// The signing key.
    public var privateKey: P256.Signing.PrivateKey {
        // The bytes came from a valid key in init, so rebuilding cannot fail.
        try! P256.Signing.PrivateKey(rawRepresentation: rawPrivateKey)
    }

    /// The public half, which Apple holds and verifies tokens with.
    public var publicKey: P256.Signing.PublicKey { privateKey.publicKey }

    /// Length of Apple's key and team ids.
    public static let identifierLength = 10

    /// - Throws: ``APNsError/Code/invalidCredential`` when an id is not 10 ASCII letters or digits
    ///   (catches, for example, a file name pasted as the key id).
    public init(keyID: String, teamID: String, privateKey: P256.Signing.PrivateKey) throws(APNsError) {
        try Self.checkIdentifier(keyID, name: "key id")
        try Self.checkIdentifier(teamID, name: "team id")
        self.keyID = keyID
        self.teamID = teamID
        self.rawPrivateKey = Array(privateKey.rawRepresentation)
    }

    /// Reads the key from the PKCS#8 PEM text of a `.p8` file.
    public init(keyID: String, teamID: String, p8PEM: String) throws(APNsError) {
        let key: P256.Signing.PrivateKey
        do {
            key = try P256.Signing.PrivateKey(pemRepresentation: p8PEM)
        } catch {
            throw APNsError(
                code: .invalidCredential,
                message: "the .p8 text for key \(keyID) is not a P-256 private key in PEM",
                underlying: String(describing: error)
            )
        }
        try self.init(keyID: keyID, teamID: teamID, privateKey: key)
    }

    /// Loads a `.p8` file. When `keyID` is nil it is taken from Apple's file name,
    /// `AuthKey_<KEYID>.p8`.
    public static func load(
        p8Path: String, keyID: String? = nil, teamID: String
    ) throws(APNsError) -> APNsTokenCredential {
        guard let keyID = keyID ?? Self.keyID(fromFileName: p8Path) else {
            throw APNsError(
                code: .invalidCredential,
                message: "no key id given and \(p8Path) is not named AuthKey_<KEYID>.p8"
            )
        }
        let pem = try CredentialFile.readText(p8Path)
        return try APNsTokenCredential(keyID: keyID, teamID: teamID, p8PEM: pem)
    }

    /// The key id in Apple's download name `AuthKey_ABCDE12345.p8`, or nil.
    public static func keyID(fromFileName path: String) -> String? {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard name.hasPrefix("AuthKey_"), name.hasSuffix(".p8") else { return nil }
        let id = String(name.dropFirst("AuthKey_".count).dropLast(".p8".count))
        return isIdentifier(id) ? id : nil
    }

    public var description: String {
        "APNsTokenCredential(teamID: \(teamID), keyID: \(keyID))"
    }

    private static func isIdentifier(_ value: String) -> Bool {
        value.utf8.count == identifierLength
            && value.utf8.allSatisfy { byte in
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            }
    }

    private static func checkIdentifier(_ value: String, name: String) throws(APNsError) {
        guard isIdentifier(value) else {
            throw APNsError(
                code: .invalidCredential,
                message: "\(name) must be \(identifierLength) ASCII letters or digits, got \"\(value)\""
            )
        }
    }
}
