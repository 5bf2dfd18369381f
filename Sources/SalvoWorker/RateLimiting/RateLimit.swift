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

    func validate(_ name: String) throws(SalvoWorkerError) {
        guard perSecond.isFinite, perSecond >= 1e-6, perSecond <= 1e9 else {
            throw .invalidConfiguration("\(name): perSecond must be 0.000001…1,000,000,000, got \(perSecond)")
        }
        guard burst >= 1, burst <= 1_000_000 else {
            throw .invalidConfiguration("\(name): burst must be 1…1,000,000, got \(burst)")
        }
    }

    public var description: String { "\(perSecond)/s burst \(burst)" }
}
