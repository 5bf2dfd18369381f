/// The generic cell rate algorithm (GCRA), the arithmetic behind every Salvo rate limit. It is a
/// token bucket expressed as one number per key, the "theoretical arrival time" (TAT), which is
/// what lets the per-device limiter keep thousands of keys in a flat array.
///
/// Sends are *reserved*, never refused: each one is given the earliest time it conforms and
/// pushes the TAT one emission interval further, so callers queue behind each other and nothing
/// is dropped. Times are nanoseconds from the limiter's epoch.
enum CellRate {
    /// Reserves one send at `now` for the key whose TAT is `arrival`; returns how long the send
    /// must wait (0 when within the burst).
    static func reserve(_ arrival: inout Int64, now: Int64, limit: RateLimit) -> Int64 {
        let start = max(arrival, now)
        arrival = start &+ limit.emissionIntervalNanoseconds
        return max(start &- limit.toleranceNanoseconds &- now, 0)
    }

    /// How long a send at `now` would wait, without reserving it.
    static func delay(_ arrival: Int64, now: Int64, limit: RateLimit) -> Int64 {
        max(max(arrival, now) &- limit.toleranceNanoseconds &- now, 0)
    }

    /// Makes the key's next send wait until at least `until`.
    static func block(_ arrival: inout Int64, until: Int64, limit: RateLimit) {
        arrival = max(arrival, until &+ limit.toleranceNanoseconds)
    }

    /// Whether a key with TAT `arrival` would still delay a send at `now` (its state matters).
    static func isConstraining(_ arrival: Int64, now: Int64) -> Bool {
        arrival > now
    }
}
