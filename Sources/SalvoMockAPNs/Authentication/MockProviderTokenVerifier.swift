import Crypto
import SalvoAPNs

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Checks a provider token the way APNs does: `bearer <JWT>`, header `{"alg":"ES256","kid":…}`,
/// claims `{"iss":…,"iat":…}`, `kid` naming a trusted key whose team is `iss`, and a valid ES256
/// signature. Expiry is the connection's business (``MockProviderTokenStateMachine``), because a
/// token that was fine when adopted expires while the connection keeps using it.
///
/// Costs a signature verification (tens of microseconds), so connections call it only when the
/// token they see changes.
struct MockProviderTokenVerifier: Sendable {
    private let keys: [String: MockTokenKey]

    init(keys: [MockTokenKey]) {
        self.keys = Dictionary(keys.map { ($0.keyID, $0) }, uniquingKeysWith: { _, last in last })
    }

    var isEmpty: Bool { self.keys.isEmpty }

    /// The verified claims, or `InvalidProviderToken`.
    func verify(authorization: [UInt8]) -> Result<MockVerifiedProviderToken, APNsReason> {
        let prefix = Array("bearer ".utf8)
        guard authorization.count > prefix.count,
            zip(authorization, prefix).allSatisfy({ $0 | 0x20 == $1 | 0x20 })
        else { return .failure(.invalidProviderToken) }
        let jwt = authorization[prefix.count...]
        let parts = jwt.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3,
            let headerBytes = Self.base64URLDecode(parts[0]),
            let claimsBytes = Self.base64URLDecode(parts[1]),
            let signatureBytes = Self.base64URLDecode(parts[2]),
            let header = try? JSONDecoder().decode(Header.self, from: Data(headerBytes)),
            let claims = try? JSONDecoder().decode(Claims.self, from: Data(claimsBytes)),
            header.alg == "ES256",
            let key = self.keys[header.kid],
            key.teamID == claims.iss,
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes)
        else { return .failure(.invalidProviderToken) }
        let signingInput = Array(jwt[jwt.startIndex..<parts[1].endIndex])
        guard key.publicKey.isValidSignature(signature, for: signingInput) else {
            return .failure(.invalidProviderToken)
        }
        return .success(MockVerifiedProviderToken(keyID: key.keyID, teamID: key.teamID, issuedAt: claims.iat))
    }

    private struct Header: Decodable {
        var alg: String
        var kid: String
    }

    private struct Claims: Decodable {
        var iss: String
        var iat: Int64
    }

    /// Base64url without padding (RFC 7515), as JWT segments are written.
    static func base64URLDecode(_ text: some Collection<UInt8>) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(text.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in text {
            let value: UInt32
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = UInt32(byte - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = UInt32(byte - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt32(byte - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "-"): value = 62
            case UInt8(ascii: "_"): value = 63
            default: return nil
            }
            accumulator = accumulator << 6 | value
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        // A lone leftover character (6 bits) cannot end a valid encoding.
        return bits >= 6 ? nil : output
    }
}
