/// A signed provider token, ready to send as `authorization: bearer <JWT>`.
///
/// The header value is encoded once when the token is signed; every request of the next 20–40
/// minutes only retains the shared bytes. The JWT is a credential for an hour, so `description`
/// does not show it.
public struct APNsAuthorization: Sendable, Hashable, CustomStringConvertible {
    /// The compact JWT, `header.claims.signature`.
    public let jwt: String
    /// `bearer <JWT>`, the value of the `authorization` header.
    public let headerValue: [UInt8]
    /// The `iat` claim, in seconds since 1970.
    public let issuedAt: Int64
    /// Counts the tokens a provider has issued (1, 2, …), so an ExpiredProviderToken answer can be
    /// matched to the token that caused it. 0 for tokens made outside a provider.
    public let generation: UInt64

    public init(jwt: String, issuedAt: Int64, generation: UInt64 = 0) {
        self.jwt = jwt
        self.headerValue = Array("bearer \(jwt)".utf8)
        self.issuedAt = issuedAt
        self.generation = generation
    }

    /// The same token, numbered by the provider that adopts it.
    func numbered(_ generation: UInt64) -> APNsAuthorization {
        APNsAuthorization(jwt: jwt, issuedAt: issuedAt, generation: generation)
    }

    public var description: String {
        "APNsAuthorization(generation: \(generation), issuedAt: \(issuedAt))"
    }
}
