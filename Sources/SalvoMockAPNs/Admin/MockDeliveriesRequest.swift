/// The query of `GET /deliveries?offset=N&max_bytes=M`, checked before any file is touched: the
/// admin listener answers whoever reaches it, so a value that is not a plain decimal in range is
/// refused with 400 rather than read as a default.
struct MockDeliveriesRequest: Equatable {
    /// Byte offset in the record file: 0 or a previous answer's `salvo-next-offset`.
    var offset: UInt64 = 0
    /// Largest page to return. Default: ``MockRecordPage/defaultMaximumBytes``.
    var maximumBytes: Int = MockRecordPage.defaultMaximumBytes

    /// The answer's header carrying the offset of the next page.
    static let nextOffsetHeader = "salvo-next-offset"
    /// The answer's header carrying the record file's size when the page was read.
    static let recordSizeHeader = "salvo-record-size"

    /// `offset` and `max_bytes` from a query string (`value(name)` returns a parameter's raw value).
    init(_ value: (String) -> String?) throws(MockAPNsError) {
        if let text = value("offset") {
            guard let offset = Self.decimal(text).flatMap({ UInt64(exactly: $0) }) else {
                throw MockAPNsError(
                    .invalidConfiguration,
                    "offset must be a byte offset (0 or salvo-next-offset), got \"\(text.prefix(40))\"")
            }
            self.offset = offset
        }
        if let text = value("max_bytes") {
            let range = MockRecordPage.maximumBytesRange
            guard let bytes = Self.decimal(text).flatMap({ Int(exactly: $0) }), range.contains(bytes) else {
                throw MockAPNsError(
                    .invalidConfiguration,
                    "max_bytes must be a number within \(range.lowerBound)…\(range.upperBound), got \"\(text.prefix(40))\""
                )
            }
            self.maximumBytes = bytes
        }
    }

    /// Digits only (no sign, no spaces, at most 19 of them, so the value fits an Int64).
    private static func decimal(_ text: String) -> UInt64? {
        guard !text.isEmpty, text.utf8.count <= 19,
            text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else {
            return nil
        }
        return UInt64(text)
    }
}
