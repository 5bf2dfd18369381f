/// Reads the members of a flat JSON object (string, integer, true/false/null values) straight from
/// bytes, without Foundation: APNs error bodies (`{"reason":"Unregistered","timestamp":…}`) can
/// arrive by the ten thousand per second in a campaign full of stale tokens, and JSONDecoder costs
/// microseconds each.
///
/// Anything outside that shape (escapes, fractions, nested values) makes it give up and return nil,
/// so the caller can fall back to a full JSON parser: it never misreads, it only declines.
struct FlatJSONObjectScanner {
    enum Value: Equatable {
        case string(String)
        case integer(Int64)
        case literal
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    /// Calls `member` for each key/value pair; returns false when the input is not a flat object.
    static func scan(_ bytes: UnsafeBufferPointer<UInt8>, member: (String, Value) -> Void) -> Bool {
        var scanner = FlatJSONObjectScanner(bytes: bytes)
        return scanner.scanObject(member: member)
    }

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    private mutating func scanObject(member: (String, Value) -> Void) -> Bool {
        skipSpace()
        guard consume(UInt8(ascii: "{")) else { return false }
        skipSpace()
        if !consume(UInt8(ascii: "}")) {
            while true {
                skipSpace()
                guard let key = scanString() else { return false }
                skipSpace()
                guard consume(UInt8(ascii: ":")) else { return false }
                skipSpace()
                guard let value = scanValue() else { return false }
                member(key, value)
                skipSpace()
                if consume(UInt8(ascii: ",")) { continue }
                guard consume(UInt8(ascii: "}")) else { return false }
                break
            }
        }
        skipSpace()
        return index == bytes.count
    }

    private mutating func scanValue() -> Value? {
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "\""):
            return scanString().map(Value.string)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return scanInteger().map(Value.integer)
        default:
            for literal in ["true", "false", "null"] where bytes[index...].starts(with: literal.utf8) {
                index += literal.utf8.count
                return .literal
            }
            return nil
        }
    }

    /// A string without escapes (APNs never sends any); nil on a backslash or a control byte.
    private mutating func scanString() -> String? {
        guard consume(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            index += 1
        }
        return nil
    }

    /// An integer; nil when a fraction or exponent follows (left to the full parser).
    private mutating func scanInteger() -> Int64? {
        let negative = consume(UInt8(ascii: "-"))
        let start = index
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
            index += 1
        }
        guard var value = ASCII.parseDecimal(UnsafeBufferPointer(rebasing: bytes[start..<index])) else { return nil }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") || bytes[index] | 0x20 == UInt8(ascii: "e") {
            return nil
        }
        if negative { value = -value }
        return value
    }

    private mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }
}
