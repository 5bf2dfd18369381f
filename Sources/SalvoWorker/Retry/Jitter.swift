/// The random source behind retry jitter: SplitMix64, seeded. Jitter needs spread, not secrecy,
/// and a seed makes every scheduling decision reproducible in tests; production seeds it from the
/// system generator (``random()``), so workers of a fleet do not retry in lockstep.
public struct Jitter: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        self.state = seed
    }

    /// Seeded from the system's random number generator.
    public static func random() -> Jitter {
        var system = SystemRandomNumberGenerator()
        return Jitter(seed: system.next())
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// A fraction in [0, 1), uniformly distributed.
    public mutating func fraction() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }
}
