/// `apns-expiration`: until when APNs stores and retries an undeliverable notification.
///
/// A UNIX time in seconds; 0 (``immediately``) means "try once, do not store". Leaving the header
/// out lets APNs apply its own storage policy.
public struct APNsExpiration: Sendable, Hashable, CustomStringConvertible {
    /// Seconds since 1970-01-01 UTC; 0 means deliver once or drop.
    public let secondsSince1970: Int64

    /// Try once; never store.
    public static let immediately = APNsExpiration(uncheckedSeconds: 0)

    public init(secondsSince1970: Int64) throws(APNsError) {
        guard secondsSince1970 >= 0 else {
            throw APNsError(
                code: .invalidExpiration,
                message: "expiration must be a UNIX time in seconds ≥ 0, got \(secondsSince1970)",
                reason: .badExpirationDate
            )
        }
        self.secondsSince1970 = secondsSince1970
    }

    /// Parses the header value: decimal digits only (APNs: `BadExpirationDate` otherwise).
    public init?(headerValue: some Collection<UInt8>) {
        guard let seconds = ASCII.parseDecimal(headerValue) else { return nil }
        self.secondsSince1970 = seconds
    }

    private init(uncheckedSeconds: Int64) {
        self.secondsSince1970 = uncheckedSeconds
    }

    /// The header value bytes.
    public var headerValue: [UInt8] { ASCII.decimalBytes(secondsSince1970) }

    public var description: String { String(secondsSince1970) }
}
