import Crypto
import SalvoAPNs
import Testing

@testable import SalvoMockAPNs

@Suite("Provider tokens: verification and the per-connection rules")
struct MockProviderTokenTests {
    static let keyID = "KEY1234567"
    static let teamID = "TEAM123456"
    let signingKey = P256.Signing.PrivateKey()

    func sign(
        issuedAt: Int64, keyID: String = Self.keyID, teamID: String = Self.teamID, key: P256.Signing.PrivateKey? = nil
    )
        throws -> [UInt8]
    {
        let credential = try APNsTokenCredential(keyID: keyID, teamID: teamID, privateKey: key ?? self.signingKey)
        return try APNsJWTSigner(credential: credential).sign(issuedAt: issuedAt).headerValue
    }

    var verifier: MockProviderTokenVerifier {
        MockProviderTokenVerifier(keys: [
            MockTokenKey(keyID: Self.keyID, teamID: Self.teamID, publicKey: self.signingKey.publicKey)
        ])
    }

    @Test("a token signed by a trusted key verifies, with its claims")
    func valid() throws {
        let result = self.verifier.verify(authorization: try self.sign(issuedAt: 1_700_000_000))
        #expect(
            result
                == .success(MockVerifiedProviderToken(keyID: Self.keyID, teamID: Self.teamID, issuedAt: 1_700_000_000)))
    }

    @Test("wrong key, unknown kid, wrong team, tampering and garbage are InvalidProviderToken")
    func invalid() throws {
        let verifier = self.verifier
        let now: Int64 = 1_700_000_000
        #expect(
            verifier.verify(authorization: try self.sign(issuedAt: now, key: P256.Signing.PrivateKey()))
                == .failure(.invalidProviderToken))
        #expect(
            verifier.verify(authorization: try self.sign(issuedAt: now, keyID: "OTHER12345"))
                == .failure(.invalidProviderToken))
        #expect(
            verifier.verify(authorization: try self.sign(issuedAt: now, teamID: "OTHER12345"))
                == .failure(.invalidProviderToken))
        var tampered = try self.sign(issuedAt: now)
        let claimsStart = tampered.firstIndex(of: UInt8(ascii: "."))! + 1
        tampered[claimsStart + 2] =
            tampered[claimsStart + 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(verifier.verify(authorization: tampered) == .failure(.invalidProviderToken))
        #expect(verifier.verify(authorization: Array("bearer not.a.jwt".utf8)) == .failure(.invalidProviderToken))
        #expect(verifier.verify(authorization: Array("basic dXNlcjpwYXNz".utf8)) == .failure(.invalidProviderToken))
    }

    @Test("base64url decoding, with and without a partial last group")
    func base64URL() {
        #expect(MockProviderTokenVerifier.base64URLDecode(Array("aGk".utf8)) == Array("hi".utf8))
        #expect(MockProviderTokenVerifier.base64URLDecode(Array("_-8".utf8)) == [0xFF, 0xEF])
        #expect(MockProviderTokenVerifier.base64URLDecode(Array("a".utf8)) == nil)
        #expect(MockProviderTokenVerifier.base64URLDecode(Array("a=".utf8)) == nil)
    }

    @Test("missing token, adoption, reuse, expiry and too-frequent updates")
    func stateMachine() throws {
        var machine = MockProviderTokenStateMachine()
        let issued: Int64 = 1_700_000_000
        let first = try self.sign(issuedAt: issued)
        let verified = MockVerifiedProviderToken(keyID: Self.keyID, teamID: Self.teamID, issuedAt: issued)

        #expect(machine.check(authorization: nil, now: issued) == .rejected(.missingProviderToken))
        #expect(machine.check(authorization: first, now: issued) == .verify)
        #expect(machine.verified(first, result: .success(verified), now: issued + 10) == .accepted)
        #expect(machine.check(authorization: first, now: issued + 3600) == .accepted)
        #expect(machine.check(authorization: first, now: issued + 3601) == .rejected(.expiredProviderToken))

        // A different token 10 minutes after adoption: too soon; the first stays in force.
        let second = try self.sign(issuedAt: issued + 600)
        let verifiedSecond = MockVerifiedProviderToken(keyID: Self.keyID, teamID: Self.teamID, issuedAt: issued + 600)
        #expect(machine.check(authorization: second, now: issued + 610) == .verify)
        #expect(
            machine.verified(second, result: .success(verifiedSecond), now: issued + 610)
                == .rejected(.tooManyProviderTokenUpdates))
        #expect(machine.check(authorization: first, now: issued + 620) == .accepted)

        // Twenty minutes after adoption the new token is taken.
        #expect(machine.verified(second, result: .success(verifiedSecond), now: issued + 10 + 1200) == .accepted)
        #expect(machine.check(authorization: second, now: issued + 1300) == .accepted)

        // A failed verification changes nothing; an old token is refused as expired.
        #expect(
            machine.verified(first, result: .failure(.invalidProviderToken), now: issued + 1300)
                == .rejected(.invalidProviderToken))
        let stale = MockVerifiedProviderToken(keyID: Self.keyID, teamID: Self.teamID, issuedAt: issued - 4000)
        #expect(
            machine.verified(Array("bearer x".utf8), result: .success(stale), now: issued + 4000)
                == .rejected(.expiredProviderToken))
        #expect(machine.check(authorization: second, now: issued + 1400) == .accepted)
    }
}
