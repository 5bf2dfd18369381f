import NIOCore

/// A GOAWAY frame received from the peer.
public struct HTTP2GoAway: Sendable, Equatable {
    public var lastStreamID: Int32
    public var errorCode: HTTP2ErrorCode
    /// Opaque diagnostic bytes (often text); empty when the peer sent none.
    public var debugData: ByteBuffer

    /// How much of ``debugData`` ``debugText(maximumBytes:)`` shows by default.
    public static let defaultDebugTextBytes = 256

    public init(lastStreamID: Int32, errorCode: HTTP2ErrorCode, debugData: ByteBuffer) {
        self.lastStreamID = lastStreamID
        self.errorCode = errorCode
        self.debugData = debugData
    }

    /// ``debugData`` fit for a log line or an error message: at most `maximumBytes` of it,
    /// invalid UTF-8 replaced, control characters shown as `?`, and the size of what was cut.
    /// A peer chooses these bytes, up to a whole frame of them: logged verbatim they could fill
    /// the logs or forge lines.
    public func debugText(maximumBytes: Int = Self.defaultDebugTextBytes) -> String {
        let shown = min(max(0, maximumBytes), self.debugData.readableBytes)
        let bytes = self.debugData.getBytes(at: self.debugData.readerIndex, length: shown) ?? []
        let decoded = String(decoding: bytes, as: UTF8.self).unicodeScalars
        let text = String(String.UnicodeScalarView(decoded.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : $0 }))
        let cut = self.debugData.readableBytes - shown
        return cut > 0 ? text + "… (\(cut) more bytes)" : text
    }
}
