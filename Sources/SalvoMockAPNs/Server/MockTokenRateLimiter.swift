import SalvoAPNs

/// Per-device-token fixed windows for the `rate_limit` fault: the first request of a token opens
/// a window of `perSeconds`; within it, requests beyond `requests` are refused (429
/// `TooManyRequests`). Time is an input (nanoseconds on any monotonic clock), so it is tested
/// without waiting. Bounded: when `capacity` tokens are tracked, expired windows are dropped, and
/// if none have expired the oldest half go.
struct MockTokenRateLimiter: Sendable {
    private struct Window: Sendable {
        var start: Int64
        var count: Int
    }

    private var windows: [DeviceToken: Window] = [:]
    let capacity: Int

    /// - Parameter capacity: Default: 1,000,000 tokens (about 100 MB at worst).
    init(capacity: Int = 1_000_000) {
        self.capacity = capacity
    }

    var trackedTokens: Int { self.windows.count }

    /// Whether `token` may receive one more notification at `now`.
    mutating func admit(_ token: DeviceToken, limit: MockScenario.RateLimit, now: Int64) -> Bool {
        let length = Nanoseconds.from(seconds: limit.perSeconds)
        if let index = self.windows.index(forKey: token) {
            if now - self.windows.values[index].start < length {
                self.windows.values[index].count += 1
                return self.windows.values[index].count <= limit.requests
            }
            self.windows.values[index] = Window(start: now, count: 1)
            return true
        }
        if self.windows.count >= self.capacity { self.prune(now: now, length: length) }
        self.windows[token] = Window(start: now, count: 1)
        return true
    }

    private mutating func prune(now: Int64, length: Int64) {
        self.windows = self.windows.filter { now - $0.value.start < length }
        if self.windows.count >= self.capacity {
            let starts = self.windows.values.map(\.start).sorted()
            let median = starts[starts.count / 2]
            self.windows = self.windows.filter { $0.value.start > median }
        }
    }
}
