import NIOCore

/// A PING acknowledged by the peer.
public struct HTTP2PingAck: Sendable, Hashable {
    /// The 8 opaque bytes sent, as a big-endian integer.
    public var data: UInt64
    /// Measured on the event loop's clock from submission to the ACK's arrival.
    public var roundTripTime: TimeAmount

    public init(data: UInt64, roundTripTime: TimeAmount) {
        self.data = data
        self.roundTripTime = roundTripTime
    }
}
