/// Reconnect delays: exponential from ``initial`` up to ``maximum``, each multiplied by a random
/// factor in `1 - jitter … 1` so that the pools of many workers do not reconnect in lockstep after
/// an outage.
public struct APNsBackoff: Sendable, Hashable {
    /// The delay before the first reconnect attempt. Default: 100 ms.
    public var initial: Duration = .milliseconds(100)
    /// The longest delay. Default: 30 s.
    public var maximum: Duration = .seconds(30)
    /// Growth per failed attempt. Default: 2.
    public var multiplier: Double = 2
    /// The fraction of each delay that is random. Default: 0.5 (a delay of d waits d/2 … d).
    public var jitter: Double = 0.5

    public init() {}

    /// The one validation place.
    public func validate() throws(APNsError) {
        guard self.initial >= .zero, self.maximum >= self.initial, self.multiplier >= 1, (0...1).contains(self.jitter)
        else {
            throw APNsError(
                code: .invalidConfiguration,
                message: "backoff needs 0 <= initial <= maximum, multiplier >= 1 and jitter within 0...1"
            )
        }
    }

    /// The delay before reconnect attempt `attempt` (0 for the first after a failure), for a
    /// random fraction `random` in 0…1.
    func delay(attempt: Int, random: Double) -> Duration {
        let maximumSeconds = self.maximum / .seconds(1)
        var base = self.initial / .seconds(1)
        var step = 0
        while step < attempt, base < maximumSeconds {
            base *= self.multiplier
            step += 1
        }
        base = min(base, maximumSeconds)
        let factor = 1 - self.jitter * min(max(random, 0), 1)
        return .nanoseconds(Int64(base * factor * 1e9))
    }
}
