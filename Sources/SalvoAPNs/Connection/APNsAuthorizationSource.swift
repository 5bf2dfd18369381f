/// Where a connection gets the `authorization` header for token authentication: a shared
/// ``APNsTokenProvider`` seen through closures, so connections and pools need not be generic over
/// the provider's clock. Certificate connections have none.
struct APNsAuthorizationSource: Sendable {
    /// The token to send on `connection` now (the provider enforces the 20-minute rules).
    let authorization: @Sendable (APNsConnectionID) throws(APNsError) -> APNsAuthorization
    /// APNs answered ExpiredProviderToken to the token of this generation on `connection`.
    let expired: @Sendable (APNsConnectionID, UInt64) -> APNsExpiredTokenAction
    /// The connection is gone: the provider forgets it.
    let connectionClosed: @Sendable (APNsConnectionID) -> Void

    init<C: Clock>(provider: APNsTokenProvider<C>) where C.Duration == Duration {
        self.authorization = { (connection) throws(APNsError) in try provider.authorization(for: connection) }
        self.expired = { connection, generation in
            provider.expiredProviderTokenReceived(on: connection, generation: generation)
        }
        self.connectionClosed = { connection in provider.connectionClosed(connection) }
    }
}
