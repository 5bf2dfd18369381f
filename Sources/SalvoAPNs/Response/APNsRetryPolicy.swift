/// What a sender does after APNs refused a notification (Apple's retry matrix, docs/design.md).
public enum APNsRetryPolicy: Sendable, Hashable, CaseIterable {
    /// Permanent: the same request can never succeed (bad token, unregistered, too large, …).
    case never
    /// 429 TooManyRequests: this device token is receiving too fast; delay it, not the others.
    case afterDelayPerToken
    /// 5xx, Shutdown, TooManyProviderTokenUpdates: APNs is unwell; back off with jitter.
    case backoff
    /// ExpiredProviderToken: refresh the JWT and replay.
    case refreshTokenAndReplay

    /// The policy for a status whose reason is unknown or missing: 429 delays the token, 5xx
    /// backs off, anything else is permanent.
    public init(status: Int) {
        switch status {
        case 429: self = .afterDelayPerToken
        case 500...599: self = .backoff
        default: self = .never
        }
    }
}
