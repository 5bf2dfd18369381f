import NIOCore
import SalvoAPNs

/// A job's device tokens, kept as positions of already validated hex strings inside the Kafka
/// message rather than as 100,000 separate arrays. A token becomes a ``DeviceToken`` only when its
/// notification is built, so memory for a campaign is the message itself plus 8 bytes per token,
/// and decoding touches each token's bytes once.
package struct JobTokenList: Sendable, RandomAccessCollection {
    /// The message the positions point into (shared storage, never copied).
    private let message: ByteBuffer
    /// Per token: offset (relative to the message's reader index) in the high bits, hex length in
    /// the low 8 bits. Offsets fit: messages are at most `UInt32.max` bytes (configuration limit).
    private var spans: [UInt64] = []

    init(message: ByteBuffer) {
        self.message = message
    }

    mutating func reserveCapacity(_ count: Int) {
        spans.reserveCapacity(count)
    }

    /// Adds a token whose hex text, already validated as a well-formed token, is at `range`.
    mutating func append(_ range: Range<Int>) {
        spans.append(UInt64(range.lowerBound) << 8 | UInt64(range.count))
    }

    package var startIndex: Int { 0 }
    package var endIndex: Int { spans.count }

    package subscript(position: Int) -> DeviceToken {
        let span = spans[position]
        let offset = Int(span >> 8)
        let length = Int(span & 0xFF)
        // Straight from the message's bytes (no String or array on the way), and not validated
        // again: the decoder's scanner did that with the same rules.
        return message.withUnsafeReadableBytes { bytes in
            DeviceToken(validatedHex: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)]))
        }
    }
}
