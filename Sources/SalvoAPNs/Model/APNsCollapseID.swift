/// `apns-collapse-id`: notifications sharing it replace each other on the device.
///
/// Apple limits it to 64 bytes. Control characters are refused too: HTTP/2 forbids them in
/// header values, so the transport would reject the request later with a less helpful error.
public struct APNsCollapseID: Sendable, Hashable, CustomStringConvertible {
    /// Longest collapse id in bytes.
    public static let maximumLength = 64

    /// The header value bytes (UTF-8).
    public let headerValue: [UInt8]

    public init(_ value: String) throws(APNsError) {
        guard let collapseID = APNsCollapseID(headerValue: value.utf8) else {
            throw APNsError(
                code: .invalidCollapseID,
                message: "collapse id must be 1…\(Self.maximumLength) UTF-8 bytes without control characters, got \(value.utf8.count) bytes",
                reason: .badCollapseId
            )
        }
        self = collapseID
    }

    /// Parses a header value; nil when APNs would answer `BadCollapseId`.
    public init?(headerValue: some Collection<UInt8>) {
        guard !headerValue.isEmpty, headerValue.count <= Self.maximumLength,
              !headerValue.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
            return nil
        }
        self.headerValue = Array(headerValue)
    }

    public var string: String { String(decoding: headerValue, as: UTF8.self) }

    public var description: String { string }
}
