/// `apns-collapse-id`: notifications sharing it replace each other on the device.
///
/// Apple limits it to 64 bytes. Beyond that it must be a value HTTP/2 carries (RFC 9113 §8.2.1):
/// no control characters (NUL, CR and LF are forbidden outright; the others, and DEL, are
/// refused as well) and no space at either end. A value breaking those rules is not rejected by
/// APNs with a reason: the server's HTTP/2 layer resets the stream with PROTOCOL_ERROR, which
/// says nothing about which field was wrong, so it is refused here, before sending.
public struct APNsCollapseID: Sendable, Hashable, CustomStringConvertible {
    /// Longest collapse id in bytes.
    public static let maximumLength = 64

    /// The header value bytes (UTF-8).
    public let headerValue: [UInt8]

    public init(_ value: String) throws(APNsError) {
        guard let collapseID = APNsCollapseID(headerValue: value.utf8) else {
            throw APNsError(
                code: .invalidCollapseID,
                message:
                    "collapse id must be 1…\(Self.maximumLength) UTF-8 bytes without control characters or surrounding spaces, got \(value.utf8.count) bytes",
                reason: .badCollapseId
            )
        }
        self = collapseID
    }

    /// Parses a header value; nil when APNs would answer `BadCollapseId` or HTTP/2 would refuse it.
    public init?(headerValue: some Collection<UInt8>) {
        guard !headerValue.isEmpty, headerValue.count <= Self.maximumLength, ASCII.isHeaderFieldValue(headerValue)
        else {
            return nil
        }
        self.headerValue = Array(headerValue)
    }

    public var string: String { String(decoding: headerValue, as: UTF8.self) }

    public var description: String { string }
}
