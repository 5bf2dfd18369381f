import NIOCore

/// A GOAWAY frame received from the peer.
public struct HTTP2GoAway: Sendable, Equatable {
    public var lastStreamID: Int32
    public var errorCode: HTTP2ErrorCode
    /// Opaque diagnostic bytes (often text); empty when the peer sent none.
    public var debugData: ByteBuffer

    public init(lastStreamID: Int32, errorCode: HTTP2ErrorCode, debugData: ByteBuffer) {
        self.lastStreamID = lastStreamID
        self.errorCode = errorCode
        self.debugData = debugData
    }
}
