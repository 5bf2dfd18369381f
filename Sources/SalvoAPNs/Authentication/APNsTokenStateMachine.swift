/// The provider-token policy, as a plain value driven by its caller: which token a connection gets,
/// when a new one must be signed, and what an ExpiredProviderToken answer changes.
///
/// Rules (Apple's, see ``APNsTokenRefreshPolicy``):
/// - one current token, shared by every connection;
/// - it is replaced once it reaches its jittered refresh age, reaches 60 minutes, or after
///   an ExpiredProviderToken answer for it — but never earlier than 20 minutes after it was signed;
/// - a connection keeps the token it switched to for at least 20 minutes, so during that time it may
///   still be handed the previous token;
/// - signing happens outside this type: ``tokenRequested(by:now:)`` answers ``Action/sign`` to one
///   caller, which reports back through ``tokenSigned(_:by:now:jitter:)`` or ``signingFailed()``.
struct APNsTokenStateMachine<C: Clock>: Sendable where C.Duration == Duration {
    typealias Instant = C.Instant

    enum Action: Sendable, Hashable {
        /// Send this token.
        case use(APNsAuthorization)
        /// Sign a new token now, then call ``tokenSigned(_:by:now:jitter:)``.
        case sign
    }

    private struct Issued: Sendable {
        var token: APNsAuthorization
        var signedAt: Instant
        var refreshAt: Instant
    }

    /// What exists once a first token was signed.
    private struct Active: Sendable {
        var current: Issued
        /// The token before `current`, still owed to connections that switched to it recently.
        var previous: Issued?
        /// One caller is signing the replacement of `current`.
        var isSigning = false
        /// APNs declared `current` expired: replace it as soon as the 20-minute floor allows.
        var isRefreshForced = false
    }

    private enum State: Sendable {
        /// No token yet: every caller signs, the first result is kept.
        case idle
        case active(Active)
    }

    /// The generation a connection last switched to, and when.
    private struct Holding: Sendable {
        var generation: UInt64
        var since: Instant
    }

    private let policy: APNsTokenRefreshPolicy
    private var state = State.idle
    private var holdings: [APNsConnectionID: Holding] = [:]

    init(policy: APNsTokenRefreshPolicy) {
        self.policy = policy
    }

    /// A connection needs a token for its next request.
    mutating func tokenRequested(by connection: APNsConnectionID, now: Instant) -> Action {
        guard case .active(var active) = state else { return .sign }
        let age = active.current.signedAt.duration(to: now)
        let isDue =
            now >= active.current.refreshAt || active.isRefreshForced || age >= APNsTokenRefreshPolicy.maximumAge
        // One signer at a time, unless the token is too old to send at all.
        if isDue, age >= APNsTokenRefreshPolicy.minimumInterval,
            !active.isSigning || age >= APNsTokenRefreshPolicy.maximumAge
        {
            active.isSigning = true
            state = .active(active)
            return .sign
        }
        return .use(handOut(to: connection, now: now, active: active))
    }

    /// The caller signed a token at `now` (as asked by ``Action/sign``); `jitter` in 0…1 picks its
    /// refresh age. Returns the token the connection must use: the new one, or, if a concurrent
    /// signer got there first, whatever the rules give.
    mutating func tokenSigned(
        _ token: APNsAuthorization, by connection: APNsConnectionID, now: Instant, jitter: Double
    ) -> APNsAuthorization {
        let replaced: Issued?
        switch state {
        case .active(let active) where !active.isSigning:
            return handOut(to: connection, now: now, active: active)
        case .active(let active):
            replaced = active.current
        case .idle:
            replaced = nil
        }
        let issued = Issued(
            token: token.numbered((replaced?.token.generation ?? 0) + 1),
            signedAt: now,
            refreshAt: now.advanced(by: policy.refreshAge(jitter: jitter))
        )
        let active = Active(current: issued, previous: replaced)
        state = .active(active)
        return handOut(to: connection, now: now, active: active)
    }

    /// Signing failed: let the next request try again.
    mutating func signingFailed() {
        if case .active(var active) = state {
            active.isSigning = false
            state = .active(active)
        }
    }

    /// APNs answered ExpiredProviderToken to a request carrying `generation` on `connection`.
    /// Forces one refresh of that generation (still no sooner than 20 minutes after it was signed).
    mutating func expiredTokenReported(
        by connection: APNsConnectionID, generation: UInt64, now: Instant
    ) -> APNsExpiredTokenAction {
        if case .active(var active) = state, active.current.token.generation == generation {
            active.isRefreshForced = true
            state = .active(active)
        }
        guard let holding = holdings[connection] else { return .replayOnSameConnection }
        return holding.since.duration(to: now) >= APNsTokenRefreshPolicy.minimumInterval
            ? .replayOnSameConnection
            : .replayOnNewConnection
    }

    /// Forgets a closed connection.
    mutating func connectionClosed(_ connection: APNsConnectionID) {
        holdings[connection] = nil
    }

    /// Number of connections with bookkeeping (for tests and metrics).
    var trackedConnections: Int { holdings.count }

    /// The current token, unless the connection switched to the previous one less than 20 minutes
    /// ago and that one is still young enough to send.
    private mutating func handOut(to connection: APNsConnectionID, now: Instant, active: Active) -> APNsAuthorization {
        let generation = active.current.token.generation
        let holding = holdings[connection]
        if let holding, holding.generation != generation, let previous = active.previous,
            holding.generation == previous.token.generation,
            holding.since.duration(to: now) < APNsTokenRefreshPolicy.minimumInterval,
            previous.signedAt.duration(to: now) < APNsTokenRefreshPolicy.maximumAge
        {
            return previous.token
        }
        if holding?.generation != generation {
            holdings[connection] = Holding(generation: generation, since: now)
        }
        return active.current.token
    }
}
