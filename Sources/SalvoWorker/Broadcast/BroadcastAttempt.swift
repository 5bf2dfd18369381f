/// One attempt at a broadcast job in the core: what its answer needs to settle the job's ledger
/// entry (the opening's generation, so an answer for a revoked and reopened position is ignored).
struct BroadcastAttempt: Sendable {
    var record: BroadcastRecord
    var source: SourcePosition
    var generation: JobLedger.Generation
    /// 1 for the first send.
    var attempt: Int
    var metricsLane: MetricsLane
    var enqueuedAtMilliseconds: Int64?
    /// Left of the retry delay while it waits (counted down by the core's rechecks).
    var remaining: Duration = .zero

    var job: BroadcastJob { record.job }

    /// The next attempt, due after `delay`.
    func next(after delay: Duration) -> BroadcastAttempt {
        var next = self
        next.attempt += 1
        next.remaining = delay
        return next
    }
}
