/// A sustained rate with a burst allowance: up to `burst` sends at once, then `perSecond`.
public struct RateLimit: Sendable, Hashable, CustomStringConvertible {
    /// Sustained sends per second; > 0.
    public var perSecond: Double
    /// Sends allowed back to back after a quiet period; ≥ 1.
    public var burst: Int

    public init(perSecond: Double, burst: Int) {
        self.perSecond = perSecond
        self.burst = burst
    }

    /// Time one send occupies at the sustained rate.
    var emissionIntervalNanoseconds: Int64 {
        Int64((1e9 / perSecond).rounded(.up))
    }

    /// How far ahead of schedule a key may run (the burst, as time).
    var toleranceNanoseconds: Int64 {
        emissionIntervalNanoseconds.multipliedReportingOverflow(by: Int64(burst - 1)).partialValue
    }

    /// Throws naming `key.per_second` or `key.burst` (`key` is the limit's YAML key, e.g.
    /// `device_rate_limit`) when a value is outside its range (``ConfigurationBounds``), which
    /// keeps ``toleranceNanoseconds`` within 64 bits.
    func validate(_ key: String) throws(SalvoWorkerError) {
        try ConfigurationBounds.perSecond.check(perSecond, key: "\(key).per_second")
        try ConfigurationBounds.burst.check(burst, key: "\(key).burst")
    }

    public var description: String { "\(perSecond)/s burst \(burst)" }
}
