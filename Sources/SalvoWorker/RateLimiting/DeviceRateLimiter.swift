import SalvoAPNs
import SalvoKafka
import SalvoPrimitives

/// Per-device-token send rates in fixed memory, so a runaway producer cannot storm one device
/// (and earn 429s for it) while a campaign's 100,000 distinct tokens cost nothing extra.
///
/// A set-associative table of `slotCount` slots (4 per set), each holding a token's 64-bit hash
/// and its GCRA arrival time: 16 bytes a slot, 1 MiB by default, whatever the number of tokens.
/// A token whose set is full evicts the slot whose limit expired longest ago; evicting one that
/// still constrains (counted in ``activeEvictions``) only forgets a limit early, so the table
/// can under-limit under extreme churn but never blocks or drops. Two tokens with the same 64-bit
/// hash share a limit.
package struct DeviceRateLimiter<C: Clock>: Sendable where C.Duration == Duration {
    /// Checked once, by ``validate()``.
    package struct Configuration: Sendable, Hashable {
        /// The limit per device token. Default: 2/s with a burst of 20 (chat-like bursts pass,
        /// a loop does not).
        package var limit: RateLimit
        /// Slots in the table; a power of two ≥ 4. Default: 65,536.
        package var slotCount: Int

        package init(limit: RateLimit = RateLimit(perSecond: 2, burst: 20), slotCount: Int = 65_536) {
            self.limit = limit
            self.slotCount = slotCount
        }

        package func validate() throws(SalvoWorkerError) {
            try limit.validate("device limit")
            guard slotCount >= DeviceRateLimiter.ways, slotCount.nonzeroBitCount == 1 else {
                throw .invalidConfiguration(
                    "slotCount must be a power of two ≥ \(DeviceRateLimiter.ways), got \(slotCount)")
            }
        }
    }

    /// Slots per set.
    static var ways: Int { 4 }

    package let configuration: Configuration
    private let epoch: C.Instant
    /// Hash of the token in each slot; 0 marks an empty slot.
    private var hashes: [UInt64]
    private var arrivals: [Int64]
    /// Slots taken over from another token.
    package private(set) var evictions = 0
    /// Evictions of a token whose limit still applied (a sign the table is too small).
    package private(set) var activeEvictions = 0

    package init(configuration: Configuration = Configuration(), now: C.Instant) throws(SalvoWorkerError) {
        try configuration.validate()
        self.configuration = configuration
        self.epoch = now
        self.hashes = Array(repeating: 0, count: configuration.slotCount)
        self.arrivals = Array(repeating: 0, count: configuration.slotCount)
    }

    /// Reserves one send to `token` at `now`; returns how long it must wait.
    package mutating func reserve(_ token: DeviceToken, now: C.Instant) -> Duration {
        let time = nanoseconds(now)
        let slot = slot(for: token, now: time)
        return .nanoseconds(CellRate.reserve(&arrivals[slot], now: time, limit: configuration.limit))
    }

    /// APNs answered 429 for `token`: its next sends wait until `until`.
    package mutating func block(_ token: DeviceToken, until: C.Instant, now: C.Instant) {
        let slot = slot(for: token, now: nanoseconds(now))
        CellRate.block(&arrivals[slot], until: nanoseconds(until), limit: configuration.limit)
    }

    /// Tokens whose limit currently applies (for a gauge).
    package func constrainedTokens(now: C.Instant) -> Int {
        let time = nanoseconds(now)
        return zip(hashes, arrivals).count { $0.0 != 0 && CellRate.isConstraining($0.1, now: time) }
    }

    private func nanoseconds(_ instant: C.Instant) -> Int64 {
        epoch.duration(to: instant).nanoseconds
    }

    /// The slot holding `token`, claiming one (empty, else the stalest) if it has none.
    private mutating func slot(for token: DeviceToken, now: Int64) -> Int {
        let hash = UInt64(bitPattern: Int64(token.hashValue)) | 1
        let setCount = configuration.slotCount / Self.ways
        let first = (Int(truncatingIfNeeded: hash >> 32) & (setCount - 1)) * Self.ways
        var victim = first
        for slot in first..<(first + Self.ways) {
            if hashes[slot] == hash { return slot }
            if hashes[victim] != 0, hashes[slot] == 0 || arrivals[slot] < arrivals[victim] { victim = slot }
        }
        if hashes[victim] != 0 {
            evictions += 1
            if CellRate.isConstraining(arrivals[victim], now: now) { activeEvictions += 1 }
        }
        hashes[victim] = hash
        arrivals[victim] = 0
        return victim
    }
}
