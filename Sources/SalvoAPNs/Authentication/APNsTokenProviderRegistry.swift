import Synchronization

/// One ``APNsTokenProvider`` per (team id, key id) for the whole process, so the pools of one key
/// (production and sandbox, several apps of a team) share a single token: more tokens per key
/// would only bring Apple's TooManyProviderTokenUpdates closer.
public final class APNsTokenProviderRegistry<C: Clock>: Sendable where C.Duration == Duration {
    private struct Key: Hashable {
        var teamID: String
        var keyID: String
    }

    private let makeProvider: @Sendable (APNsTokenCredential) throws(APNsError) -> APNsTokenProvider<C>
    private let providers = Mutex<[Key: APNsTokenProvider<C>]>([:])

    /// Providers are created with these settings (see ``APNsTokenProvider/init(credential:policy:clock:unixTime:jitter:)``).
    public init(
        policy: APNsTokenRefreshPolicy = APNsTokenRefreshPolicy(),
        clock: C,
        unixTime: @escaping @Sendable () -> Int64 = TokenProviderDefaults.unixTime,
        jitter: @escaping @Sendable () -> Double = TokenProviderDefaults.jitter
    ) throws(APNsError) {
        try policy.validate()
        self.makeProvider = { credential throws(APNsError) in
            try APNsTokenProvider(
                credential: credential, policy: policy, clock: clock, unixTime: unixTime, jitter: jitter)
        }
    }

    /// The provider for the credential's (team, key), created on first use. A later credential
    /// with the same ids gets the existing provider (and its key).
    public func provider(for credential: APNsTokenCredential) throws(APNsError) -> APNsTokenProvider<C> {
        let key = Key(teamID: credential.teamID, keyID: credential.keyID)
        if let existing = providers.withLock({ $0[key] }) { return existing }
        let created = try makeProvider(credential)
        return providers.withLock { providers in
            if let raced = providers[key] { return raced }
            providers[key] = created
            return created
        }
    }

    /// Number of distinct (team, key) providers.
    public var count: Int {
        providers.withLock { $0.count }
    }
}
