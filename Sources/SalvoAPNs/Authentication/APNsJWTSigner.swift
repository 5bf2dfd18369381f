import Crypto

/// Signs APNs provider tokens: ES256 JWTs with header `{"alg":"ES256","kid":KEY_ID}` and claims
/// `{"iss":TEAM_ID,"iat":SECONDS}`.
///
/// Header and claims are written byte for byte in that order (the ids are checked to be
/// alphanumeric, so no JSON escaping is needed); the signature is the raw 64-byte `r || s` JWS
/// form, not DER. Signing costs tens of microseconds, which is why ``APNsTokenProvider`` caches
/// one token for 20–40 minutes instead of signing per request.
public struct APNsJWTSigner: Sendable {
    public let credential: APNsTokenCredential
    private let encodedHeader: String

    public init(credential: APNsTokenCredential) {
        self.credential = credential
        self.encodedHeader = Base64URL.encode(Array("{\"alg\":\"ES256\",\"kid\":\"\(credential.keyID)\"}".utf8))
    }

    /// A token issued at `issuedAt` (seconds since 1970).
    public func sign(issuedAt: Int64) throws(APNsError) -> APNsAuthorization {
        let claims = Base64URL.encode(Array("{\"iss\":\"\(credential.teamID)\",\"iat\":\(issuedAt)}".utf8))
        let signingInput = encodedHeader + "." + claims
        let signature: P256.Signing.ECDSASignature
        do {
            signature = try credential.privateKey.signature(for: Array(signingInput.utf8))
        } catch {
            throw APNsError(
                code: .signingFailed,
                message: "ES256 signing failed for key \(credential.keyID)",
                underlying: String(describing: error)
            )
        }
        let jwt = signingInput + "." + Base64URL.encode(signature.rawRepresentation)
        return APNsAuthorization(jwt: jwt, issuedAt: issuedAt)
    }
}
