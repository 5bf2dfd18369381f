import SalvoAPNs

/// One connection's provider token, with APNs's rules about it:
/// - no `authorization` → 403 `MissingProviderToken`;
/// - a token that fails verification → 403 `InvalidProviderToken`;
/// - a token issued more than an hour ago → 403 `ExpiredProviderToken` (also for the token the
///   connection already uses, once it ages past the hour);
/// - a different valid token less than 20 minutes after the connection adopted its current one →
///   429 `TooManyProviderTokenUpdates` (the current token stays in force).
///
/// The same bytes as the adopted token are accepted without verifying again, which is what keeps
/// token mode cheap: the per-request cost is one byte comparison. Time is an input (seconds since
/// 1970), so the rules are tested without waiting.
struct MockProviderTokenStateMachine: Sendable {
    /// APNs refuses tokens older than this. Default: one hour.
    static let maximumAgeSeconds: Int64 = 3600
    /// APNs refuses a new token on a connection sooner than this after the last. Default: 20 minutes.
    static let minimumUpdateIntervalSeconds: Int64 = 1200

    enum State: Sendable, Equatable {
        case noToken
        case adopted(authorization: [UInt8], issuedAt: Int64, adoptedAt: Int64, teamID: String)
    }

    enum Check: Sendable, Equatable {
        case accepted
        case rejected(APNsReason)
        /// A token this connection has not seen: verify it and report through ``verified(_:result:now:)``.
        case verify
    }

    private(set) var state: State = .noToken

    /// The team of the token in force (the broadcast endpoints' `TopicMismatch` rule).
    var teamID: String? {
        if case .adopted(_, _, _, let teamID) = self.state { return teamID }
        return nil
    }

    /// Whether a token issued at `issuedAt` is older than an hour at `now`. `iat` comes from the
    /// request: compared without subtracting it, so `iat = Int64.min` cannot overflow.
    static func isExpired(issuedAt: Int64, now: Int64) -> Bool {
        issuedAt < now - Self.maximumAgeSeconds
    }

    /// The first look at a request's `authorization` value.
    func check(authorization: [UInt8]?, now: Int64) -> Check {
        guard let authorization else { return .rejected(.missingProviderToken) }
        if case .adopted(let current, let issuedAt, _, _) = self.state, current == authorization {
            return Self.isExpired(issuedAt: issuedAt, now: now) ? .rejected(.expiredProviderToken) : .accepted
        }
        return .verify
    }

    /// The verifier's answer for a token ``check(authorization:now:)`` asked about.
    mutating func verified(
        _ authorization: [UInt8], result: Result<MockVerifiedProviderToken, APNsReason>, now: Int64
    ) -> Check {
        let token: MockVerifiedProviderToken
        switch result {
        case .failure(let reason): return .rejected(reason)
        case .success(let verified): token = verified
        }
        if Self.isExpired(issuedAt: token.issuedAt, now: now) { return .rejected(.expiredProviderToken) }
        if case .adopted(_, _, let adoptedAt, _) = self.state, now - adoptedAt < Self.minimumUpdateIntervalSeconds {
            return .rejected(.tooManyProviderTokenUpdates)
        }
        self.state = .adopted(
            authorization: authorization, issuedAt: token.issuedAt, adoptedAt: now, teamID: token.teamID)
        return .accepted
    }
}
