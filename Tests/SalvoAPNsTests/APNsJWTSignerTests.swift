import Crypto
import Foundation
import SalvoAPNs
import Testing

@Suite struct APNsJWTSignerTests {
    static func decodeBase64URL(_ segment: Substring) -> Data? {
        var base64 = segment.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }

    static func credential() throws -> APNsTokenCredential {
        try APNsTokenCredential(keyID: "ABCDE12345", teamID: "TEAM123456", privateKey: P256.Signing.PrivateKey())
    }

    @Test func headerAndClaimsAreExactlyApplesShape() throws {
        let token = try APNsJWTSigner(credential: Self.credential()).sign(issuedAt: 1_700_000_000)
        let segments = token.jwt.split(separator: ".", omittingEmptySubsequences: false)
        try #require(segments.count == 3)
        let header = try #require(Self.decodeBase64URL(segments[0]))
        let claims = try #require(Self.decodeBase64URL(segments[1]))
        #expect(String(decoding: header, as: UTF8.self) == #"{"alg":"ES256","kid":"ABCDE12345"}"#)
        #expect(String(decoding: claims, as: UTF8.self) == #"{"iss":"TEAM123456","iat":1700000000}"#)
        #expect(token.issuedAt == 1_700_000_000)
        #expect(String(decoding: token.headerValue, as: UTF8.self) == "bearer " + token.jwt)
    }

    @Test func signatureIsRawRSAndVerifiesWithThePublicKey() throws {
        let credential = try Self.credential()
        let token = try APNsJWTSigner(credential: credential).sign(issuedAt: 42)
        let segments = token.jwt.split(separator: ".", omittingEmptySubsequences: false)
        let signatureBytes = try #require(Self.decodeBase64URL(segments[2]))
        #expect(signatureBytes.count == 64)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: signatureBytes)
        let signingInput = Data("\(segments[0]).\(segments[1])".utf8)
        #expect(credential.publicKey.isValidSignature(signature, for: signingInput))
        #expect(!credential.publicKey.isValidSignature(signature, for: Data("tampered".utf8)))
        let otherKey = P256.Signing.PrivateKey().publicKey
        #expect(!otherKey.isValidSignature(signature, for: signingInput))
    }

    @Test func segmentsAreUnpaddedBase64URL() throws {
        let signer = try APNsJWTSigner(credential: Self.credential())
        // Several iat lengths give every padding remainder; signatures vary randomly too.
        for iat in [Int64(0), 7, 42, 1234, 99_999, 1_700_000_000] {
            let jwt = try signer.sign(issuedAt: iat).jwt
            #expect(!jwt.contains("="))
            #expect(!jwt.contains("+"))
            #expect(!jwt.contains("/"))
            let allowed = CharacterSet(
                charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.")
            #expect(jwt.unicodeScalars.allSatisfy(allowed.contains))
            let claims = try #require(Self.decodeBase64URL(jwt.split(separator: ".")[1]))
            #expect(String(decoding: claims, as: UTF8.self) == #"{"iss":"TEAM123456","iat":\#(iat)}"#)
        }
    }
}
