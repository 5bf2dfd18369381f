/// The dispatch window and the flight limit: how much a pump may send, when an answer refills
/// the window at once and when it waits for a batch's worth of room, and when a pump is asked
/// for at all (one per event-loop turn). The core performs the decisions (schedules the
/// pump or the refill task, submits); the counts stay here.
///
/// Called several times per notification, so every method is a few field accesses the optimizer
/// inlines: no payload-carrying action enum, no closure, no copy of an `Instant`-holding optional
/// beyond what the latency tracking needs (docs/performance-notes.md).
struct DispatchWindow<Instant: InstantProtocol> where Instant.Duration == Duration {
    /// What an answer asks for (``onAnswered(urgent:waiting:)``).
    enum Refill {
        case none
        /// Schedule a pump this turn.
        case pumpNow
        /// Schedule the refill task (the core's refill delay): the window is nearly full.
        case armRefill
    }

    /// In flight, delayed, held and parked work stays below this: the pools' stream credit plus a
    /// small buffer. Held work counts, so a brownout stops intake instead of draining partitions
    /// into memory (and then into the dead-letter topic).
    let size: Int
    /// Free window slots that make an answer refill at once: an eighth of the window, at most 256.
    let refillBatch: Int
    private(set) var inFlight = 0
    private var pumpScheduled = false
    /// The refill task is armed (the core holds it).
    private var refillArmed = false
    /// Per-user work was queued or dispatched within the last second (set by each pump).
    private var latencySensitive = false
    // The fields above are asked per notification and come first: an `Instant`'s layout is not
    // frozen, so every field stored after the first that holds one is found through metadata.
    /// In flight stays below this while per-user pushes are being sent: the window while the
    /// answer time shows no queueing, less when answers queue (``AdaptiveWindow``,
    /// `lanes.queue_delay_target`). Campaigns alone use the whole window: a deeper queue batches
    /// better and only per-user pushes wait for it.
    private var flightLimit: AdaptiveWindow<Instant>
    private var priorityDispatchedAt: Instant?

    init(size: Int, queueDelayTarget: Duration?) {
        self.size = size
        self.refillBatch = max(1, min(256, size / 8))
        self.flightLimit = AdaptiveWindow(maximum: size, target: queueDelayTarget)
    }

    /// The flight limit's current value (statistics).
    var flightLimitValue: Int { flightLimit.limit }

    /// Whether the flight limit adapts at all (`lanes.queue_delay_target` set): only then does a
    /// pump need to know whether per-user work is queued.
    var adaptsToLatency: Bool { flightLimit.target != nil }

    /// Whether the pump's batches sample their answer time for the flight limit.
    var samplesRoundTrips: Bool { latencySensitive }

    // MARK: Pumps

    /// Work arrived: returns true when the core must schedule a pump (none is scheduled yet).
    mutating func onPumpWanted() -> Bool {
        guard !pumpScheduled else { return false }
        pumpScheduled = true
        return true
    }

    /// A pump starts. Returns whether the refill task was armed (the core cancels it).
    mutating func onPumpStarted() -> Bool {
        pumpScheduled = false
        defer { refillArmed = false }
        return refillArmed
    }

    /// The refill task fired: returns true when the core must schedule a pump.
    mutating func onRefillDue() -> Bool {
        refillArmed = false
        return onPumpWanted()
    }

    /// Sets whether per-user work is about (`priorityQueued`, or sent within the last second) and
    /// returns the pump's flight limit: the adaptive limit then, the window otherwise.
    mutating func onPumpPlanned(now: Instant, priorityQueued: Bool) -> Int {
        if adaptsToLatency {
            if priorityQueued {
                latencySensitive = true
            } else if let priorityDispatchedAt {
                latencySensitive = priorityDispatchedAt.duration(to: now) < .seconds(1)
            } else {
                latencySensitive = false
            }
        }
        return latencySensitive ? flightLimit.limit : size
    }

    /// Whether the pump may send one more: room in the window (`waiting`: delayed, held for a
    /// retry, parked) and under the pump's flight `limit`.
    func hasRoom(waiting: Int, limit: Int) -> Bool {
        inFlight + waiting < size && inFlight < limit
    }

    /// What the rest of the pump may send (a batch's capacity).
    func freeRoom(waiting: Int, limit: Int) -> Int {
        min(size - inFlight - waiting, limit - inFlight)
    }

    mutating func onSent() { inFlight += 1 }

    /// The pump ended: a per-user send starts the second of latency sensitivity again, and a
    /// pump stopped by the flight limit tells the limit so.
    mutating func onPumpEnded(sentPriority: Bool, limit: Int, now: Instant) {
        if sentPriority { priorityDispatchedAt = now }
        if latencySensitive, inFlight >= limit { flightLimit.limitReached() }
    }

    // MARK: Answers

    /// One request was answered.
    mutating func onAnswer() { inFlight -= 1 }

    /// After an answer was handled. Refilling the window a few slots at a time, as answers
    /// trickle in, would cost a write, a TLS record and a wake-up of the gateway per few
    /// requests; so the window refills once a batch's worth of it (``refillBatch``) is free, or
    /// after the core's refill delay (1 ms) at the latest. `urgent` (draining, replays waiting)
    /// pumps at once; only the refill of a full window waits, which stays seven-eighths full.
    mutating func onAnswered(urgent: Bool, waiting: Int) -> Refill {
        // `freeRoom`'s sum, from the fields (hot-path rule 3).
        let limit = latencySensitive ? flightLimit.limit : size
        if urgent || min(size - inFlight - waiting, limit - inFlight) >= refillBatch {
            return onPumpWanted() ? .pumpNow : .none
        }
        guard !refillArmed, !pumpScheduled else { return .none }
        refillArmed = true
        return .armRefill
    }

    /// One answer-time sample (a batch's median answer, from submission) while the flight limit is in force.
    mutating func onLatencySample(_ sample: Duration, now: Instant) {
        guard latencySensitive else { return }
        flightLimit.record(sample, now: now)
    }
}
