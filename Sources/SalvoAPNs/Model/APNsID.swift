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
    /// SipHash-2-4 (128-bit output, key ``deterministicKey``) over the job id's UTF-8 length as a
    /// big-endian `UInt64`, the job id and the token's lowercase hex; the version nibble is set
    /// to 5 and the RFC 4122 variant bits (UUID v5 style). The length prefix keeps ("ab", "c…")
    /// and ("a", "bc…") apart. Anyone can recompute an id from the job id and the token (the load
    /// test does, to match the mock's record); nothing about it is secret.
    public static func deterministic(jobID: String, token: DeviceToken) -> APNsID {
        DeterministicNamespace(jobID: jobID).id(for: token)
    }

    /// ``deterministic(jobID:token:)`` for the tokens of one job: the job's part of the hash is
    /// absorbed once, so each token costs only its own bytes.
    public struct DeterministicNamespace: Sendable {
        private let hasher: SipHash128

        public init(jobID: String) {
            var hasher = SipHash128(k0: APNsID.deterministicKey.k0, k1: APNsID.deterministicKey.k1)
            var jobID = jobID
            jobID.withUTF8 { job in
                hasher.update(UInt64(job.count).bigEndian)
                hasher.update(UnsafeRawBufferPointer(job))
            }
            self.hasher = hasher
        }

        public func id(for token: DeviceToken) -> APNsID {
            var hasher = self.hasher
            token.withHexBytes { hasher.update($0) }
            let (first, second) = hasher.finalize()
            return APNsID(high: first, low: second).withVersion(5)
        }
    }

    /// The fixed SipHash key of deterministic ids: the ASCII bytes of `salvo apns-id v1`, read as
    /// two little-endian words.
    static let deterministicKey: (k0: UInt64, k1: UInt64) = (0x7061_206f_766c_6173, 0x3176_2064_692d_736e)

    /// Parses `8-4-4-4-12` hex (either case); nil otherwise (APNs: `BadMessageId`).
    ///
    /// Contiguous bytes (arrays, buffer views, UTF-8 strings) are parsed through one raw pointer:
    /// called from another module this function runs unspecialized, and iterating a generic
    /// collection byte by byte there costs a metadata lookup per byte (it was 40 % of the mock
    /// APNs server's CPU, which checks every request's `apns-id`).
    public init?(headerValue: some Collection<UInt8>) {
        guard headerValue.count == Self.textLength else { return nil }
        if let parsed = headerValue.withContiguousStorageIfAvailable({ Self(text: UnsafeRawBufferPointer($0)) }) {
            guard let parsed else { return nil }
            self = parsed
            return
        }
        let bytes = [UInt8](headerValue)
        guard let parsed = bytes.withUnsafeBytes({ Self(text: $0) }) else { return nil }
        self = parsed
    }

    private init?(text: UnsafeRawBufferPointer) {
        guard text.count == Self.textLength else { return nil }
        var high: UInt64 = 0
        var low: UInt64 = 0
        var digits = 0
        for offset in 0..<Self.textLength {
            let byte = text[offset]
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
            self.write(into: UnsafeMutableRawBufferPointer(buffer))
            count = Self.textLength
        }
    }

    /// Writes the canonical lowercase text into the first ``textLength`` bytes of `buffer`, for
    /// callers encoding a header without an array per id (every request of a campaign has one).
    public func write(into buffer: UnsafeMutableRawBufferPointer) {
        precondition(buffer.count >= Self.textLength, "an apns-id needs \(Self.textLength) bytes")
        let base = buffer.baseAddress!
        // 8-4-4 digits from `high`, then 4-12 from `low`, dashes between the groups; eight
        // digits at a time (a nibble at a time was ~260 instructions an id, on every request).
        let first = Self.hexDigits(UInt32(truncatingIfNeeded: self.high >> 32))
        let second = Self.hexDigits(UInt32(truncatingIfNeeded: self.high))
        let third = Self.hexDigits(UInt32(truncatingIfNeeded: self.low >> 32))
        let fourth = Self.hexDigits(UInt32(truncatingIfNeeded: self.low))
        base.storeBytes(of: first, toByteOffset: 0, as: UInt64.self)
        base.storeBytes(of: UInt8(ascii: "-"), toByteOffset: 8, as: UInt8.self)
        base.storeBytes(of: UInt32(truncatingIfNeeded: second), toByteOffset: 9, as: UInt32.self)
        base.storeBytes(of: UInt8(ascii: "-"), toByteOffset: 13, as: UInt8.self)
        base.storeBytes(of: UInt32(truncatingIfNeeded: second >> 32), toByteOffset: 14, as: UInt32.self)
        base.storeBytes(of: UInt8(ascii: "-"), toByteOffset: 18, as: UInt8.self)
        base.storeBytes(of: UInt32(truncatingIfNeeded: third), toByteOffset: 19, as: UInt32.self)
        base.storeBytes(of: UInt8(ascii: "-"), toByteOffset: 23, as: UInt8.self)
        base.storeBytes(of: UInt32(truncatingIfNeeded: third >> 32), toByteOffset: 24, as: UInt32.self)
        base.storeBytes(of: fourth, toByteOffset: 28, as: UInt64.self)
    }

    /// The eight lowercase hex digits of `value`, most significant first in memory order (the
    /// word is meant to be stored little-endian, as `storeBytes` does on every platform Salvo
    /// builds for): each nibble spread into a byte, then turned into its ASCII digit.
    private static func hexDigits(_ value: UInt32) -> UInt64 {
        var spread = UInt64(value)
        spread = (spread & 0xFFFF_0000) << 16 | (spread & 0x0000_FFFF)
        spread = (spread & 0x0000_FF00_0000_FF00) << 8 | (spread & 0x0000_00FF_0000_00FF)
        spread = (spread & 0x00F0_00F0_00F0_00F0) << 4 | (spread & 0x000F_000F_000F_000F)
        // Byte i holds nibble i (least significant first); memory order wants the reverse.
        spread = spread.byteSwapped
        // 1 in each byte whose nibble is 10 or more: those skip from '9' + 1 to 'a'.
        let letters = ((spread &+ 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101
        return (spread &+ 0x3030_3030_3030_3030 &+ letters &* 39).littleEndian
    }

    /// The canonical text, written once (no intermediate byte array): servers answer an
    /// `apns-id` on every response.
    public var string: String {
        String(unsafeUninitializedCapacity: Self.textLength) { buffer in
            self.write(into: UnsafeMutableRawBufferPointer(buffer))
            return Self.textLength
        }
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
