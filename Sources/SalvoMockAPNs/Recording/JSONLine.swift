/// Builds one flat JSON object as bytes, for the record file's lines: no encoder, no Strings for
/// values that are already bytes (token, topic, apns-id).
struct JSONLine {
    private var bytes: [UInt8] = [UInt8(ascii: "{")]
    private static let hexDigits = Array("0123456789abcdef".utf8)

    init() {
        self.bytes.reserveCapacity(320)
    }

    mutating func field(_ name: StaticString, string value: (some Collection<UInt8>)?) {
        self.key(name)
        guard let value else {
            self.bytes.append(contentsOf: "null".utf8)
            return
        }
        self.bytes.append(UInt8(ascii: "\""))
        for byte in value {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                self.bytes.append(UInt8(ascii: "\\"))
                self.bytes.append(byte)
            case 0..<0x20:
                self.bytes.append(contentsOf: "\\u00".utf8)
                self.bytes.append(Self.hexDigits[Int(byte >> 4)])
                self.bytes.append(Self.hexDigits[Int(byte & 0xF)])
            default:
                self.bytes.append(byte)
            }
        }
        self.bytes.append(UInt8(ascii: "\""))
    }

    mutating func field(_ name: StaticString, integer value: Int64?) {
        self.key(name)
        if let value {
            self.bytes.append(contentsOf: String(value).utf8)
        } else {
            self.bytes.append(contentsOf: "null".utf8)
        }
    }

    mutating func field(_ name: StaticString, hex value: some Sequence<UInt8>) {
        self.key(name)
        self.bytes.append(UInt8(ascii: "\""))
        for byte in value {
            self.bytes.append(Self.hexDigits[Int(byte >> 4)])
            self.bytes.append(Self.hexDigits[Int(byte & 0xF)])
        }
        self.bytes.append(UInt8(ascii: "\""))
    }

    /// Closes the object and ends the line.
    mutating func finish() -> [UInt8] {
        self.bytes.append(UInt8(ascii: "}"))
        self.bytes.append(UInt8(ascii: "\n"))
        return self.bytes
    }

    private mutating func key(_ name: StaticString) {
        if self.bytes.count > 1 { self.bytes.append(UInt8(ascii: ",")) }
        self.bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { self.bytes.append(contentsOf: $0) }
        self.bytes.append(contentsOf: "\":".utf8)
    }
}
