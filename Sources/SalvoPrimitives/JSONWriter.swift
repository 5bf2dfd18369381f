import NIOCore

/// Writes JSON text straight into bytes: the one JSON writer and string escaper of the package,
/// for APNs error bodies, the worker's records (feedback, dead letters, retries, checkpoints), the
/// mock's record file and the executable's log lines. A feedback event is a dozen members:
/// building it here costs one array, where `JSONEncoder` would build a dictionary tree and
/// re-encode a payload that is already JSON.
///
/// Commas are placed automatically; the caller nests `begin…`/`end…` correctly.
package struct JSONWriter {
    @usableFromInline package internal(set) var bytes: [UInt8] = []
    @usableFromInline var needsComma = false

    @inlinable
    package init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    /// `text` as a JSON string literal (quotes, backslashes and control characters escaped, the
    /// rest as is), for text the program writes itself: error bodies, log lines.
    package static func quoted(_ text: String) -> String {
        var writer = JSONWriter(capacity: text.utf8.count + 2)
        writer.string(text)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    @inlinable
    package mutating func beginObject() { open(UInt8(ascii: "{")) }

    @inlinable
    package mutating func endObject() { close(UInt8(ascii: "}")) }

    @inlinable
    package mutating func beginArray() { open(UInt8(ascii: "[")) }

    @inlinable
    package mutating func endArray() { close(UInt8(ascii: "]")) }

    @inlinable
    mutating func open(_ bracket: UInt8) {
        separate()
        bytes.append(bracket)
        needsComma = false
    }

    @inlinable
    mutating func close(_ bracket: UInt8) {
        bytes.append(bracket)
        needsComma = true
    }

    /// Starts a member; the next call writes its value.
    @inlinable
    package mutating func key(_ name: String) {
        string(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    @inlinable
    package mutating func string(_ value: String) {
        stringBytes(value.utf8)
    }

    /// A string from UTF-8 bytes, escaping quotes, backslashes and control characters.
    @inlinable
    package mutating func stringBytes(_ value: some Sequence<UInt8>) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        for byte in value {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(byte)
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                bytes.append(Self.hexDigit(byte >> 4))
                bytes.append(Self.hexDigit(byte & 0x0F))
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    /// Bytes as a string of lowercase hex digits (a digest).
    @inlinable
    package mutating func hexString(_ value: some Sequence<UInt8>) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        for byte in value {
            bytes.append(Self.hexDigit(byte >> 4))
            bytes.append(Self.hexDigit(byte & 0x0F))
        }
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    @inlinable
    package mutating func integer(_ value: some BinaryInteger) {
        separate()
        bytes.append(contentsOf: String(value).utf8)
        needsComma = true
    }

    @inlinable
    package mutating func null() {
        separate()
        bytes.append(contentsOf: [UInt8(ascii: "n"), UInt8(ascii: "u"), UInt8(ascii: "l"), UInt8(ascii: "l")])
        needsComma = true
    }

    /// Bytes that are already one valid JSON value (a payload the decoder validated).
    @inlinable
    package mutating func rawValue(_ json: ByteBuffer) {
        separate()
        bytes.append(contentsOf: json.readableBytesView)
        needsComma = true
    }

    /// A string member, or nothing when `value` is nil.
    @inlinable
    package mutating func member(_ name: String, _ value: String?) {
        guard let value else { return }
        key(name)
        string(value)
    }

    /// An integer member, or nothing when `value` is nil.
    @inlinable
    package mutating func member(_ name: String, _ value: (some BinaryInteger)?) {
        guard let value else { return }
        key(name)
        integer(value)
    }

    /// Ends a line of newline-delimited JSON (the mock's record file).
    @inlinable
    package mutating func newline() {
        bytes.append(UInt8(ascii: "\n"))
        needsComma = false
    }

    @inlinable
    mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    /// A lowercase hex digit for `nibble` (0...15), computed: no table to load lazily.
    @inlinable
    static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") &+ nibble : UInt8(ascii: "a") &+ (nibble &- 10)
    }
}
