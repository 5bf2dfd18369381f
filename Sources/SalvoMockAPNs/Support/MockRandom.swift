/// xoshiro256** seeded through SplitMix64: a fast generator for per-request draws (latency, error
/// rates, generated apns-ids). `SystemRandomNumberGenerator` costs a `getrandom` system call per
/// draw on Linux, which the per-request path cannot afford. Not cryptographic, and it need not be.
struct MockRandom: RandomNumberGenerator {
    private var s0: UInt64
    private var s1: UInt64
    private var s2: UInt64
    private var s3: UInt64

    init(seed: UInt64) {
        var splitMix = seed
        func next() -> UInt64 {
            splitMix &+= 0x9e37_79b9_7f4a_7c15
            var z = splitMix
            z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
            z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
            return z ^ (z >> 31)
        }
        self.s0 = next()
        self.s1 = next()
        self.s2 = next()
        self.s3 = next()
    }

    mutating func next() -> UInt64 {
        let result = ((self.s1 &* 5) << 7 | (self.s1 &* 5) >> 57) &* 9
        let t = self.s1 << 17
        self.s2 ^= self.s0
        self.s3 ^= self.s1
        self.s1 ^= self.s2
        self.s0 ^= self.s3
        self.s2 ^= t
        self.s3 = self.s3 << 45 | self.s3 >> 19
        return result
    }

    /// A uniform draw in 0..<1 with 53 bits of precision.
    mutating func nextUnit() -> Double {
        Double(self.next() >> 11) * 0x1.0p-53
    }
}
