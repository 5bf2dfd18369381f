import Metrics
import Synchronization

/// Hands out the provider token for one (team, key) to every connection that uses it, following
/// Apple's refresh rules (``APNsTokenRefreshPolicy``), from any thread or event loop.
///
/// The per-request cost is one uncontended lock, one clock read and one dictionary lookup: the
/// `authorization` header bytes are built when a token is signed, every 30–35 minutes, never per
/// request. Signing runs outside the lock.
///
/// Connections identify themselves with an ``APNsConnectionID`` and report their closing through
/// ``connectionClosed(_:)`` so the bookkeeping stays bounded.
public final class APNsTokenProvider<C: Clock>: Sendable where C.Duration == Duration {
    public let credential: APNsTokenCredential
    private let signer: APNsJWTSigner
    private let clock: C
    private let unixTime: @Sendable () -> Int64
    private let jitter: @Sendable () -> Double
    private let state: Mutex<APNsTokenStateMachine<C>>
    /// Created once per provider (signing happens every 30–35 minutes, so the cost is nil; the
    /// point is that operators see refreshes and, above all, signing failures per key).
    private let refreshes: Counter
    private let refreshFailures: Counter

    /// - Parameters:
    ///   - policy: When tokens are replaced. Default: ``APNsTokenRefreshPolicy/init(refreshAge:)``.
    ///   - clock: Drives refresh timing (tests pass a manual clock).
    ///   - unixTime: The `iat` source, seconds since 1970. Default: the system's wall clock.
    ///   - jitter: A fraction in 0…1 per token, choosing its refresh age. Default: random.
    public init(
        credential: APNsTokenCredential,
        policy: APNsTokenRefreshPolicy = APNsTokenRefreshPolicy(),
        clock: C,
        unixTime: @escaping @Sendable () -> Int64 = TokenProviderDefaults.unixTime,
        jitter: @escaping @Sendable () -> Double = TokenProviderDefaults.jitter
    ) throws(APNsError) {
        try policy.validate()
        self.credential = credential
        self.signer = APNsJWTSigner(credential: credential)
        self.clock = clock
        self.unixTime = unixTime
        self.jitter = jitter
        self.state = Mutex(APNsTokenStateMachine(policy: policy))
        let dimensions = [("team", credential.teamID), ("key", credential.keyID)]
        self.refreshes = Counter(label: "salvo_apns_token_refreshes_total", dimensions: dimensions)
        self.refreshFailures = Counter(label: "salvo_apns_token_refresh_failures_total", dimensions: dimensions)
    }

    /// The token `connection` sends with its next request; signs a new one when one is due.
    /// - Throws: ``APNsError/Code/signingFailed`` (the next call tries again).
    public func authorization(for connection: APNsConnectionID) throws(APNsError) -> APNsAuthorization {
        let now = clock.now
        switch state.withLock({ $0.tokenRequested(by: connection, now: now) }) {
        case .use(let token):
            return token
        case .sign:
            let signed: APNsAuthorization
            do {
                signed = try signer.sign(issuedAt: unixTime())
            } catch {
                state.withLock { $0.signingFailed() }
                refreshFailures.increment()
                throw error
            }
            refreshes.increment()
            let fraction = jitter()
            return state.withLock { $0.tokenSigned(signed, by: connection, now: now, jitter: fraction) }
        }
    }

    /// APNs answered ExpiredProviderToken to `token` on `connection`: forces one refresh of that
    /// token and says where to replay.
    public func expiredProviderTokenReceived(
        on connection: APNsConnectionID, token: APNsAuthorization
    ) -> APNsExpiredTokenAction {
        expiredProviderTokenReceived(on: connection, generation: token.generation)
    }

    /// The same for a caller that kept only the token's generation (a connection with thousands
    /// of requests in flight keeps a number per request, not a copy of the token).
    func expiredProviderTokenReceived(on connection: APNsConnectionID, generation: UInt64) -> APNsExpiredTokenAction {
        let now = clock.now
        return state.withLock { $0.expiredTokenReported(by: connection, generation: generation, now: now) }
    }

    /// Forgets a closed connection's bookkeeping.
    public func connectionClosed(_ connection: APNsConnectionID) {
        state.withLock { $0.connectionClosed(connection) }
    }

    /// Connections the provider currently remembers.
    public var trackedConnections: Int {
        state.withLock { $0.trackedConnections }
    }
}

extension APNsTokenProvider where C == ContinuousClock {
    /// A provider on the continuous clock, as production uses it.
    public convenience init(
        credential: APNsTokenCredential, policy: APNsTokenRefreshPolicy = APNsTokenRefreshPolicy()
    ) throws(APNsError) {
        try self.init(credential: credential, policy: policy, clock: ContinuousClock())
    }
}
