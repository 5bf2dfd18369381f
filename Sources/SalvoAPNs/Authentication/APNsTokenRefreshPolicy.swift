/// When ``APNsTokenProvider`` replaces its provider token, within Apple's limits.
///
/// Apple rejects a token older than 60 minutes (`ExpiredProviderToken`) and a connection whose
/// token changes more often than every 20 minutes (`TooManyProviderTokenUpdates`). A connection
/// that picked up a token just before its replacement must keep it for 20 more minutes, so a token
/// can be in use until `refreshAge + 20 min`: refreshing at 40 minutes or later could push that
/// past 60. Hence the default window 30–35 minutes, leaving 5 minutes for clock skew.
public struct APNsTokenRefreshPolicy: Sendable, Hashable {
    /// Apple's floor: the least time between two tokens, per provider and per connection.
    public static let minimumInterval: Duration = .seconds(20 * 60)
    /// Apple's ceiling: a token older than this is rejected.
    public static let maximumAge: Duration = .seconds(60 * 60)

    /// The age at which a token is replaced, drawn uniformly from this range for each token (the
    /// jitter spreads refreshes of many providers). Must lie within 20…40 minutes.
    /// Default: 30…35 minutes.
    public var refreshAge: ClosedRange<Duration>

    public init(refreshAge: ClosedRange<Duration> = .seconds(30 * 60) ... .seconds(35 * 60)) {
        self.refreshAge = refreshAge
    }

    /// The one validation place: throws ``APNsError/Code/invalidConfiguration`` naming the limit.
    public func validate() throws(APNsError) {
        let latest = Self.maximumAge - Self.minimumInterval
        guard refreshAge.lowerBound >= Self.minimumInterval, refreshAge.upperBound <= latest else {
            throw APNsError(
                code: .invalidConfiguration,
                message:
                    "token refresh age \(refreshAge) must lie within \(Self.minimumInterval)…\(latest): Apple allows one token per 20 minutes per connection and rejects tokens older than 60"
            )
        }
    }

    /// The refresh age for a jitter fraction in 0…1.
    func refreshAge(jitter: Double) -> Duration {
        let fraction = min(max(jitter, 0), 1)
        return refreshAge.lowerBound + (refreshAge.upperBound - refreshAge.lowerBound) * fraction
    }
}
