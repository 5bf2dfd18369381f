import NIOCore
import SalvoAPNs

/// A notification the mock answered 200, as listeners see it.
public struct MockAcceptedPush: Sendable {
    /// The `apns-id` answered: the one the sender gave, or the one the mock generated.
    public var apnsID: APNsID
    /// What the request asked for (token, topic, push type, priority, expiration, collapse id).
    public var request: APNsReceivedRequest
    /// The payload bytes as received.
    public var payload: ByteBuffer
    /// When the request was complete, milliseconds since 1970.
    public var receivedAtMilliseconds: Int64
    /// Numbers the server's connections 1, 2, … in accept order.
    public var connectionID: Int

    public init(
        apnsID: APNsID, request: APNsReceivedRequest, payload: ByteBuffer, receivedAtMilliseconds: Int64,
        connectionID: Int
    ) {
        self.apnsID = apnsID
        self.request = request
        self.payload = payload
        self.receivedAtMilliseconds = receivedAtMilliseconds
        self.connectionID = connectionID
    }
}
