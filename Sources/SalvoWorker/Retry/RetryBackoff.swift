import SalvoKafka
import SalvoPrimitives

/// Exponential backoff with "equal jitter": the delay after attempt n is
/// `initialDelay × multiplier^(n-1)`, capped at `maximumDelay`, of which half is fixed and half
/// random. Never retrying sooner than half the delay keeps a struggling APNs from being hammered;
/// the random half keeps a fleet of workers from retrying in lockstep.
public struct RetryBackoff: Sendable, Hashable {
    /// Delay after the first failed attempt, before jitter.
    public var initialDelay: Duration
    /// Growth per attempt; ≥ 1.
    public var multiplier: Double
    /// Longest delay, before jitter.
    public var maximumDelay: Duration

    public init(initialDelay: Duration, multiplier: Double = 2, maximumDelay: Duration) {
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maximumDelay = maximumDelay
    }

    /// The delay after failed attempt `attempt` (1-based), before jitter.
    public func delay(afterAttempt attempt: Int) -> Duration {
        let seconds = initialDelay.secondsValue * integralPower(multiplier, max(attempt, 1) - 1)
        let capped = min(seconds, maximumDelay.secondsValue)
        return .seconds(capped)
    }

    /// The delay with jitter; `fraction` in [0, 1) picks where in [delay/2, delay) it falls.
    public func jitteredDelay(afterAttempt attempt: Int, fraction: Double) -> Duration {
        let delay = delay(afterAttempt: attempt)
        return .seconds(delay.secondsValue * (0.5 + 0.5 * min(max(fraction, 0), 1)))
    }
}

/// `base` to a non-negative integral power by repeated squaring (no Foundation `pow` needed).
private func integralPower(_ base: Double, _ exponent: Int) -> Double {
    var result = 1.0
    var factor = base
    var remaining = exponent
    while remaining > 0 {
        if remaining & 1 == 1 { result *= factor }
        factor *= factor
        remaining >>= 1
        if result.isInfinite { return result }
    }
    return result
}
