import SalvoKafka

/// The records (feedback, dead letters, retry hand-offs, checkpoints) handed to the publisher and
/// not yet acknowledged, and the consumer tasks waiting for them: at ``maximum`` intake pauses,
/// so the queue to the producer stays bounded while Kafka is behind; it resumes once the backlog
/// is half empty, so a backlog hovering at the bound does not wake the consumers per record.
///
/// Records Kafka refuses are warned about here too, once per kind and then summarised
/// (``onRefused(_:now:)``), so a broker refusing every record does not log per record.
///
/// Generic over the waiter (a continuation's resume in production, a number in tests) and the
/// clock the warnings are throttled by.
struct RecordBacklog<Waiter, C: Clock> where C.Duration == Duration {
    /// Most records waiting for Kafka's acknowledgement before intake pauses. Outcomes of work
    /// already in flight may still add records past it, so the queue to the producer holds at
    /// most this plus the window (plus a lane batch's dead letters).
    static var maximum: Int { 10_000 }

    private(set) var pending = 0
    private var waiters: [Waiter] = []
    private var refusals = LogThrottle<C>()

    /// Whether intake must pause.
    var isFull: Bool { pending >= Self.maximum }

    var hasWaiters: Bool { !waiters.isEmpty }

    /// A record went to the publisher.
    mutating func onPublished() { pending += 1 }

    /// A record is done with (acknowledged, abandoned, or a checkpoint whatever its answer).
    /// Returns the consumer tasks to resume now: all of them once the backlog is half empty.
    mutating func onSettled() -> [Waiter] {
        pending -= 1
        guard !waiters.isEmpty, pending <= Self.maximum / 2 else { return [] }
        defer { waiters = [] }
        return waiters
    }

    /// A checkpoint was answered, or a record after the drain ended: counted off without
    /// resuming anyone (no job waited for it; the next job record's answer resumes them).
    mutating func onSettledWithoutResuming() { pending -= 1 }

    /// A consumer task found the backlog full: it waits for ``onSettled()`` (or the drain).
    mutating func onIntakeWaiting(_ waiter: Waiter) { waiters.append(waiter) }

    /// Draining: no consumer task waits for the backlog any more (they are closing).
    mutating func onDrainReleasesWaiters() -> [Waiter] {
        guard !waiters.isEmpty else { return [] }
        defer { waiters = [] }
        return waiters
    }

    /// A record of kind `key` was refused (or a checkpoint not written): whether to warn now.
    mutating func onRefused(_ key: String, now: C.Instant) -> LogThrottle<C>.Decision {
        refusals.shouldLog(key, now: now)
    }

    /// Summaries of the warnings left out whose interval has passed (the statistics tick).
    mutating func dueRefusalSummaries(now: C.Instant) -> [LogThrottle<C>.Summary] {
        refusals.dueSummaries(now: now)
    }

    /// Every summary still held (the drain's end).
    mutating func remainingRefusalSummaries(now: C.Instant) -> [LogThrottle<C>.Summary] {
        refusals.remainingSummaries(now: now)
    }
}
