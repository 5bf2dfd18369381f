import Crypto

/// `apns-id`: the UUID APNs uses to identify a notification (echoed in its answer).
///
/// Stored as two integers so it is cheap to copy, hash and compare; rendered as the canonical
/// lowercase `8-4-4-4-12` form only when a header is written.
public struct APNsID: Sendable, Hashable, CustomStringConvertible {
    /// Bytes 0…7 of the UUID, big-endian.
    public let high: UInt64
    /// Bytes 8…15 of the UUID, big-endian.
    public let low: UInt64

    /// Length of the canonical text form.
    public static let textLength = 36

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// A random (version 4) id.
    public static func random() -> APNsID {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    /// A random (version 4) id from `generator`.
    public static func random(using generator: inout some RandomNumberGenerator) -> APNsID {
        APNsID(high: generator.next(), low: generator.next()).withVersion(4)
    }

    /// The same id for every send of one job's notification to one token, so a replay after a
    /// crash or a retry carries the id of the first attempt and duplicates can be recognised
    /// (by the mock's record, or by anyone correlating APNs answers).
    ///
    /// SHA-256 over a length-prefixed job id and the token's lowercase hex, truncated to 16 bytes,
    /// with the version nibble set to 5 and the RFC 4122 variant bits (UUID v5 style, SHA-256
    /// instead of SHA-1). The length prefix keeps ("ab", "c…") and ("a", "bc…") apart.
    public static func deterministic(jobID: String, token: DeviceToken) -> APNsID {
        var hasher = SHA256()
        let jobBytes = Array(jobID.utf8)
        withUnsafeBytes(of: UInt64(jobBytes.count).bigEndian) { hasher.update(bufferPointer: $0) }
        hasher.update(data: jobBytes)
        token.hexBytes.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        let digest = hasher.finalize()
        return digest.withUnsafeBytes { raw in
            let high = raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self).bigEndian
            let low = raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self).bigEndian
            return APNsID(high: high, low: low).withVersion(5)
        }
    }

    /// Parses `8-4-4-4-12` hex (either case); nil otherwise (APNs: `BadMessageId`).
    public init?(headerValue: some Collection<UInt8>) {
        guard headerValue.count == Self.textLength else { return nil }
        var high: UInt64 = 0
        var low: UInt64 = 0
        var digits = 0
        for (offset, byte) in headerValue.enumerated() {
            // The dashes of 8-4-4-4-12. A comparison chain, not a Set: this runs per byte on
            // every response APNs sends.
            if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
                guard byte == UInt8(ascii: "-") else { return nil }
                continue
            }
            guard let value = ASCII.hexValue(byte) else { return nil }
            if digits < 16 {
                high = high << 4 | UInt64(value)
            } else {
                low = low << 4 | UInt64(value)
            }
            digits += 1
        }
        self.init(high: high, low: low)
    }

    public init?(_ string: String) {
        self.init(headerValue: string.utf8)
    }

    /// Canonical lowercase text as header value bytes.
    public var headerValue: [UInt8] {
        [UInt8](unsafeUninitializedCapacity: Self.textLength) { buffer, count in
            count = self.write(into: UnsafeMutableBufferPointer(rebasing: buffer[...]))
        }
    }

    /// The canonical text, written once (no intermediate byte array): servers answer an
    /// `apns-id` on every response.
    public var string: String {
        String(unsafeUninitializedCapacity: Self.textLength) { self.write(into: $0) }
    }

    /// Writes the 36 characters of the canonical form; returns how many.
    private func write(into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var index = 0
        for nibble in 0..<32 {
            if nibble == 8 || nibble == 12 || nibble == 16 || nibble == 20 {
                buffer[index] = UInt8(ascii: "-")
                index += 1
            }
            let word = nibble < 16 ? high : low
            let shift = UInt64(60 - (nibble % 16) * 4)
            buffer[index] = ASCII.lowercaseHexDigit(UInt8(truncatingIfNeeded: (word >> shift) & 0xF))
            index += 1
        }
        return index
    }

    /// The UUID version (4 for random, 5 for deterministic ids).
    public var version: Int { Int((high >> 12) & 0xF) }

    public var description: String { string }

    /// Sets the version nibble and the RFC 4122 variant (`10xx`).
    private func withVersion(_ version: UInt64) -> APNsID {
        APNsID(
            high: (high & ~0xF000) | (version << 12),
            low: (low & ~(0xC000_0000_0000_0000 as UInt64)) | 0x8000_0000_0000_0000
        )
    }
}
