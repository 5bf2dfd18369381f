import NIOCore

/// The few Kafka protocol primitives the front end reads and writes before authentication
/// (https://kafka.apache.org/protocol#protocol_types). Every reader returns `nil` on a short or
/// malformed field, so a hostile frame closes its connection instead of trapping.
extension ByteBuffer {
    /// UNSIGNED_VARINT: seven bits a byte, low group first; at most five bytes for 32 bits.
    mutating func readKafkaUnsignedVarint() -> UInt32? {
        var value: UInt32 = 0
        for index in 0..<5 {
            guard let byte = readInteger(as: UInt8.self) else { return nil }
            value |= UInt32(byte & 0x7F) << (7 * UInt32(index))
            if byte & 0x80 == 0 { return value }
        }
        return nil
    }

    mutating func writeKafkaUnsignedVarint(_ value: UInt32) {
        var rest = value
        while rest >= 0x80 {
            writeInteger(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        writeInteger(UInt8(rest))
    }

    /// NULLABLE_STRING: int16 length, -1 for null.
    mutating func readKafkaNullableString() -> String?? {
        guard let length = readInteger(as: Int16.self) else { return nil }
        guard length >= 0 else { return .some(nil) }
        guard let text = readString(length: Int(length)) else { return nil }
        return .some(text)
    }

    /// STRING: int16 length, then UTF-8.
    mutating func writeKafkaString(_ text: String) {
        writeInteger(Int16(clamping: text.utf8.count))
        writeString(text)
    }

    /// BYTES: int32 length, then the bytes.
    mutating func readKafkaBytes() -> [UInt8]? {
        guard let length = readInteger(as: Int32.self), length >= 0 else { return nil }
        return readBytes(length: Int(length))
    }

    /// COMPACT_BYTES: unsigned varint length + 1, then the bytes.
    mutating func readKafkaCompactBytes() -> [UInt8]? {
        guard let lengthPlusOne = readKafkaUnsignedVarint(), lengthPlusOne > 0 else { return nil }
        return readBytes(length: Int(lengthPlusOne - 1))
    }

    /// BYTES, or COMPACT_BYTES in a flexible version.
    mutating func writeKafkaBytes(_ bytes: [UInt8], compact: Bool) {
        if compact {
            writeKafkaUnsignedVarint(UInt32(bytes.count) + 1)
        } else {
            writeInteger(Int32(bytes.count))
        }
        writeBytes(bytes)
    }

    /// NULLABLE_STRING, or COMPACT_NULLABLE_STRING in a flexible version.
    mutating func writeKafkaNullableString(_ text: String?, compact: Bool) {
        switch (text, compact) {
        case (nil, true): writeKafkaUnsignedVarint(0)
        case (nil, false): writeInteger(Int16(-1))
        case (let text?, true):
            writeKafkaUnsignedVarint(UInt32(text.utf8.count) + 1)
            writeString(text)
        case (let text?, false): writeKafkaString(text)
        }
    }

    /// Skips a TAG_BUFFER (a count, then tag, size and data for each field); `nil` if malformed.
    mutating func skipKafkaTaggedFields() -> Void? {
        guard let count = readKafkaUnsignedVarint(), count <= 64 else { return nil }
        for _ in 0..<count {
            guard readKafkaUnsignedVarint() != nil, let size = readKafkaUnsignedVarint(),
                moveReaderIndex(forwardByIfPossible: Int(size))
            else { return nil }
        }
        return ()
    }

    /// An empty TAG_BUFFER.
    mutating func writeKafkaEmptyTaggedFields() {
        writeKafkaUnsignedVarint(0)
    }

    private mutating func moveReaderIndex(forwardByIfPossible count: Int) -> Bool {
        guard readableBytes >= count else { return false }
        moveReaderIndex(forwardBy: count)
        return true
    }
}
