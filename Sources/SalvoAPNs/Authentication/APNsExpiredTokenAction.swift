/// How to replay a notification APNs refused with `ExpiredProviderToken`, given that a connection
/// may not switch tokens within 20 minutes of its last switch.
public enum APNsExpiredTokenAction: Sendable, Hashable {
    /// The connection may take the refreshed token now: replay on it.
    case replayOnSameConnection
    /// The connection switched tokens less than 20 minutes ago: replay on another (new) connection,
    /// which starts with the refreshed token; retire this one.
    case replayOnNewConnection
}
