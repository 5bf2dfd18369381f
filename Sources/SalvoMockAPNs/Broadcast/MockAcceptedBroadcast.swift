import NIOCore

/// A broadcast the mock answered 200, as listeners see it (and the record file writes it, with
/// `channel_id` where a device push has `token`).
public struct MockAcceptedBroadcast: Sendable {
    public var bundleID: String
    public var channelID: String
    /// The `apns-request-id` answered.
    public var requestID: String
    public var priority: Int
    public var expiration: Int64
    public var payload: ByteBuffer
    public var receivedAtMilliseconds: Int64
    public var connectionID: Int

    public init(
        bundleID: String, channelID: String, requestID: String, priority: Int, expiration: Int64, payload: ByteBuffer,
        receivedAtMilliseconds: Int64, connectionID: Int
    ) {
        self.bundleID = bundleID
        self.channelID = channelID
        self.requestID = requestID
        self.priority = priority
        self.expiration = expiration
        self.payload = payload
        self.receivedAtMilliseconds = receivedAtMilliseconds
        self.connectionID = connectionID
    }
}
