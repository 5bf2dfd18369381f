/// What a valid provider token says.
struct MockVerifiedProviderToken: Sendable, Hashable {
    var keyID: String
    var teamID: String
    /// The `iat` claim, seconds since 1970.
    var issuedAt: Int64
}
