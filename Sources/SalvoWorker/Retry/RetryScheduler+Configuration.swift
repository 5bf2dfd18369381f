extension RetryScheduler {
    /// Delays and bounds. Checked once, by ``validate()``.
    public struct Configuration: Sendable, Hashable {
        /// For APNs being unwell (5xx, Shutdown) or unreachable. Default: 500 ms doubling to 60 s.
        public var backoff: RetryBackoff
        /// For 429 TooManyRequests: the device token is throttled by Apple, so wait much longer
        /// for it (other tokens are unaffected). Default: 10 s doubling to 5 min.
        public var tooManyRequests: RetryBackoff
        /// Notifications whose due times fall in one window of this width are re-dispatched
        /// together, at the window's end (never early). Default: 100 ms.
        public var batchWindow: Duration
        /// Most notifications held in memory; beyond it they go to the retry topic. Default: 100,000.
        public var maximumHeldNotifications: Int
        /// Longer delays go straight to the retry topic instead of holding memory, and, above all, instead
        /// of holding their job's offset: a retry held in memory keeps its job open, so the
        /// partition's commit waits for it while later jobs complete, and a crash re-sends them
        /// all. Handed to the retry topic and acknowledged, the notification is done for its job.
        /// Default: 5 s (the first four 5xx backoffs; every 429).
        public var maximumHeldDelay: Duration

        public init(
            backoff: RetryBackoff = RetryBackoff(initialDelay: .milliseconds(500), maximumDelay: .seconds(60)),
            tooManyRequests: RetryBackoff = RetryBackoff(initialDelay: .seconds(10), maximumDelay: .seconds(300)),
            batchWindow: Duration = .milliseconds(100),
            maximumHeldNotifications: Int = 100_000,
            maximumHeldDelay: Duration = .seconds(5)
        ) {
            self.backoff = backoff
            self.tooManyRequests = tooManyRequests
            self.batchWindow = batchWindow
            self.maximumHeldNotifications = maximumHeldNotifications
            self.maximumHeldDelay = maximumHeldDelay
        }

        /// Throws naming the `retry.…` key of a value outside its range (``ConfigurationBounds``),
        /// or of a backoff whose `max` is shorter than its `initial`.
        public func validate() throws(SalvoWorkerError) {
            for (key, backoff) in [("retry.backoff", backoff), ("retry.too_many_requests", tooManyRequests)] {
                try ConfigurationBounds.backoffInitial.check(backoff.initialDelay, key: "\(key).initial")
                try ConfigurationBounds.backoffMaximum.check(backoff.maximumDelay, key: "\(key).max")
                try ConfigurationBounds.backoffMultiplier.check(backoff.multiplier, key: "\(key).multiplier")
                guard backoff.maximumDelay >= backoff.initialDelay else {
                    let (maximum, initial) = (
                        backoff.maximumDelay.configurationText, backoff.initialDelay.configurationText
                    )
                    throw .invalidConfiguration("\(key).max: \(maximum) is shorter than \(key).initial \(initial)")
                }
            }
            try ConfigurationBounds.batchWindow.check(batchWindow, key: "retry.batch_window")
            try ConfigurationBounds.maximumHeld.check(maximumHeldNotifications, key: "retry.max_held")
            try ConfigurationBounds.maximumHeldDelay.check(maximumHeldDelay, key: "retry.max_held_delay")
        }
    }
}
