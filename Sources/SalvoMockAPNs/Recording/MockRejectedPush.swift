import SalvoAPNs

/// A request the mock answered with an error status, as listeners see it.
public struct MockRejectedPush: Sendable {
    public var reason: APNsReason
    public var status: Int
    /// The `apns-id` answered.
    public var apnsID: APNsID
    /// What the request asked for, when it got past Apple's header rules (nil for `BadPath`,
    /// `BadTopic` and the like).
    public var request: APNsReceivedRequest?
    /// The `timestamp` answered with 410 `Unregistered`, milliseconds since 1970.
    public var timestampMilliseconds: Int64?
    public var receivedAtMilliseconds: Int64
    public var connectionID: Int

    public init(
        reason: APNsReason, status: Int, apnsID: APNsID, request: APNsReceivedRequest?, timestampMilliseconds: Int64?,
        receivedAtMilliseconds: Int64, connectionID: Int
    ) {
        self.reason = reason
        self.status = status
        self.apnsID = apnsID
        self.request = request
        self.timestampMilliseconds = timestampMilliseconds
        self.receivedAtMilliseconds = receivedAtMilliseconds
        self.connectionID = connectionID
    }
}
