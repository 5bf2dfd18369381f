/// SipHash-2-4 with its 128-bit output (Aumasson and Bernstein; the reference's
/// `vectors_sip128` are the tests), fed incrementally.
///
/// Why not SHA-256: deterministic `apns-id`s are derived for every notification a worker sends,
/// and swift-crypto's hasher allocates and zeroes a context per digest, which cost about 5 % of
/// the worker's CPU in campaign mode. The ids need to be stable and well spread, not secret;
/// SipHash with a fixed, documented key gives that without an allocation.
struct SipHash128 {
    private var lanes: Lanes
    /// Bytes not yet compressed, little-endian, `pendingCount` of them.
    private var pending: UInt64 = 0
    private var pendingCount = 0
    private var length = 0

    /// - Parameters: the key's two little-endian halves (bytes 0…7 and 8…15).
    init(k0: UInt64, k1: UInt64) {
        lanes = Lanes(
            v0: k0 ^ 0x736f_6d65_7073_6575,
            v1: k1 ^ 0x646f_7261_6e64_6f6d ^ 0xee,
            v2: k0 ^ 0x6c79_6765_6e65_7261,
            v3: k1 ^ 0x7465_6462_7974_6573)
    }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        length &+= bytes.count
        var index = 0
        // The word loops work on a local copy of the state, which stays in registers: through
        // `self` every compression loaded and stored the four lanes (~80 instructions per
        // 64-hex-character token).
        var lanes = self.lanes
        if pendingCount == 0 {
            while bytes.count - index >= 8 {
                lanes.compress(bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self).littleEndian)
                index += 8
            }
        } else {
            // A partly filled word (a job id whose length is not a multiple of 8 comes before
            // every token): each loaded word completes the pending bytes and leaves its own last
            // `pendingCount` bytes pending. Byte by byte, this was ~580 instructions a token.
            let shift = UInt64(8 * pendingCount)
            var pending = self.pending
            while bytes.count - index >= 8 {
                let word = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self).littleEndian
                lanes.compress(pending | word &<< shift)
                pending = word &>> (64 - shift)
                index += 8
            }
            self.pending = pending
        }
        self.lanes = lanes
        while index < bytes.count {
            absorb(bytes[index])
            index += 1
        }
    }

    mutating func update(_ value: UInt64) {
        withUnsafeBytes(of: value) { update($0) }
    }

    /// The two 64-bit halves of the tag (the reference writes each little-endian, first then second).
    mutating func finalize() -> (first: UInt64, second: UInt64) {
        let last = UInt64(truncatingIfNeeded: length) << 56 | pending
        lanes.compress(last)
        lanes.v2 ^= 0xee
        for _ in 0..<4 { lanes.round() }
        let first = lanes.v0 ^ lanes.v1 ^ lanes.v2 ^ lanes.v3
        lanes.v1 ^= 0xdd
        for _ in 0..<4 { lanes.round() }
        return (first, lanes.v0 ^ lanes.v1 ^ lanes.v2 ^ lanes.v3)
    }

    private mutating func absorb(_ byte: UInt8) {
        pending |= UInt64(byte) << (8 * UInt64(pendingCount))
        pendingCount += 1
        if pendingCount == 8 {
            lanes.compress(pending)
            pending = 0
            pendingCount = 0
        }
    }

    /// SipHash's four state words.
    private struct Lanes {
        var v0: UInt64
        var v1: UInt64
        var v2: UInt64
        var v3: UInt64

        /// SipHash-2-4: two rounds per message word.
        @inline(__always)
        mutating func compress(_ word: UInt64) {
            v3 ^= word
            round()
            round()
            v0 ^= word
        }

        @inline(__always)
        mutating func round() {
            v0 &+= v1
            v1 = v1.rotatedLeft(13) ^ v0
            v0 = v0.rotatedLeft(32)
            v2 &+= v3
            v3 = v3.rotatedLeft(16) ^ v2
            v0 &+= v3
            v3 = v3.rotatedLeft(21) ^ v0
            v2 &+= v1
            v1 = v1.rotatedLeft(17) ^ v2
            v2 = v2.rotatedLeft(32)
        }
    }
}

extension UInt64 {
    fileprivate func rotatedLeft(_ count: UInt64) -> UInt64 {
        (self &<< count) | (self &>> (64 - count))
    }
}
