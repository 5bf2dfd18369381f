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
    /// The first token's span is kept inline: a per-user push has one token, and an array for it
    /// was an allocation per job (~500 instructions with its growth and release).
    private var firstSpan: UInt64?
    /// The spans of the tokens after the first.
    private var laterSpans: [UInt64] = []

    init(message: ByteBuffer) {
        self.message = message
    }

    mutating func reserveCapacity(_ count: Int) {
        laterSpans.reserveCapacity(Swift.max(0, count - 1))
    }

    /// Adds a token whose hex text, already validated as a well-formed token, is at `range`.
    mutating func append(_ range: Range<Int>) {
        let span = UInt64(range.lowerBound) << 8 | UInt64(range.count)
        if firstSpan == nil {
            firstSpan = span
        } else {
            laterSpans.append(span)
        }
    }

    package var startIndex: Int { 0 }
    package var endIndex: Int { firstSpan == nil ? 0 : 1 + laterSpans.count }

    package subscript(position: Int) -> DeviceToken {
        let span = position == 0 ? firstSpan! : laterSpans[position - 1]
        let offset = Int(span >> 8)
        let length = Int(span & 0xFF)
        // Straight from the message's bytes (no String or array on the way), and not validated
        // again: the decoder's scanner did that with the same rules.
        return message.withUnsafeReadableBytes { bytes in
            DeviceToken(validatedHex: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)]))
        }
    }
}
