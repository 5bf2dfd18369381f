import DequeModule

/// Work out of the lanes and out of flight that the core sends again later: replays and due
/// retries ready now, notifications held for a retry, sends a rate limit delayed. What the two
/// schedulers hold counts against the dispatch window (``DispatchWindow``), so a backlog of
/// retries stops intake instead of growing; each scheduler decides its own due times and
/// hand-offs.
struct WaitingWork<C: Clock> where C.Duration == Duration {
    /// Replays and due retries, dispatched before new lane slots, without rate limits.
    var ready: Deque<DispatchItem> = []
    /// Notifications waiting after a retryable answer (attempt already increased).
    var retries: RetryScheduler.StateMachine<C>
    /// Sends a rate limit delayed: not an attempt, so they come back as they went.
    var delayedSends: RetryScheduler.StateMachine<C>

    /// Rate-limit delays are bounded by the window (delayed sends count against it), not by the
    /// retry hand-off bound: handing them to the retry topic would only churn.
    init(
        retry: RetryScheduler.Configuration, maximumRateLimitDelay: Duration, now: C.Instant
    )
        throws(SalvoWorkerError)
    {
        self.retries = try RetryScheduler.StateMachine(configuration: retry, now: now)
        var delayed = retry
        delayed.maximumHeldDelay = maximumRateLimitDelay
        self.delayedSends = try RetryScheduler.StateMachine(configuration: delayed, now: now)
    }

    /// What the schedulers hold (counted in the window).
    var heldCount: Int { retries.heldCount + delayedSends.heldCount }
}
