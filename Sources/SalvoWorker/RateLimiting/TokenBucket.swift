import SalvoKafka
import SalvoPrimitives

/// One rate limit for one key (an app): how long the next send must wait. Delays, never drops.
package struct TokenBucket<C: Clock>: Sendable where C.Duration == Duration {
    package let limit: RateLimit
    private let epoch: C.Instant
    private var arrival: Int64 = 0

    package init(limit: RateLimit, now: C.Instant) {
        self.limit = limit
        self.epoch = now
    }

    /// How long a send at `now` would wait, without reserving it.
    package func delay(now: C.Instant) -> Duration {
        .nanoseconds(CellRate.delay(arrival, now: epoch.duration(to: now).nanoseconds, limit: limit))
    }

    /// Reserves one send at `now`; returns the delay before it may go.
    package mutating func reserve(now: C.Instant) -> Duration {
        .nanoseconds(CellRate.reserve(&arrival, now: epoch.duration(to: now).nanoseconds, limit: limit))
    }
}
