/// Byte-level helpers shared by the model types and the validator, so header values are checked
/// and produced without building Strings on the hot path.
enum ASCII {
    /// The lowercase hex digit for 0…15, computed rather than looked up: a global table costs a
    /// lazy-initialisation check per access, per byte of every token and apns-id.
    @inline(__always)
    static func lowercaseHexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? value &+ UInt8(ascii: "0") : value &+ (UInt8(ascii: "a") &- 10)
    }

    /// The value of a hexadecimal digit (either case), or nil.
    @inline(__always)
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte &- UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte &- UInt8(ascii: "a") &+ 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte &- UInt8(ascii: "A") &+ 10
        default: return nil
        }
    }

    /// A non-negative decimal integer without sign or leading `+`, or nil on any other byte or on
    /// overflow. Leading zeros are accepted ("0" is a valid expiration).
    static func parseDecimal(_ bytes: some Collection<UInt8>) -> Int64? {
        guard !bytes.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int64(byte &- UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            value = sum
        }
        return value
    }

    /// The decimal digits of a non-negative integer.
    static func decimalBytes(_ value: Int64) -> [UInt8] {
        precondition(value >= 0, "only non-negative values are encoded")
        return Array(String(value).utf8)
    }

    /// Whether `bytes` may be sent as an HTTP/2 field value, by the strict reading of RFC 9113
    /// §8.2.1 that nghttp2 servers apply: no control characters (0x00…0x1F, 0x7F; HTAB too, which
    /// the RFC allows inside a value but no APNs field needs) and no space at either end. Bytes
    /// 0x80 and above (UTF-8) pass.
    static func isHeaderFieldValue(_ bytes: some Collection<UInt8>) -> Bool {
        if bytes.first == 0x20 { return false }
        var last: UInt8 = 0
        for byte in bytes {
            if byte < 0x20 || byte == 0x7F { return false }
            last = byte
        }
        return last != 0x20
    }

    /// Visible ASCII (0x21…0x7E): what topics may hold.
    @inline(__always)
    static func isVisible(_ byte: UInt8) -> Bool {
        byte >= 0x21 && byte <= 0x7E
    }

    /// Compares bytes with a lowercase ASCII literal, ignoring the case of `bytes`.
    static func equalsCaseInsensitive(_ bytes: some Collection<UInt8>, lowercase: [UInt8]) -> Bool {
        guard bytes.count == lowercase.count else { return false }
        return zip(bytes, lowercase).allSatisfy { a, b in
            let lowered = (a >= UInt8(ascii: "A") && a <= UInt8(ascii: "Z")) ? a | 0x20 : a
            return lowered == b
        }
    }
}
