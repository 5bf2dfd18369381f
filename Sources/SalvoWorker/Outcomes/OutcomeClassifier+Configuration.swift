extension OutcomeClassifier {
    /// How persistent the worker is. Checked once, by ``validate()``.
    public struct Configuration: Sendable, Hashable {
        /// Attempts (sends answered by APNs or given up on after replays) before a retryable
        /// failure is dead-lettered (`retries_exhausted`). With the default backoff the last
        /// attempt comes about three minutes after the first. Default: 10.
        public var maximumAttempts: Int
        /// Immediate replays of one attempt when the request was never processed, before the
        /// notification backs off instead (a connection that keeps failing is not hammered).
        /// Default: 3.
        public var maximumImmediateReplays: Int
        /// Whether a dead token (Unregistered, BadDeviceToken, …) is also dead-lettered. Its
        /// feedback event already records it, and stale tokens are common in campaigns, so
        /// dead-lettering them mostly adds noise. Default: false.
        public var deadLetterInvalidTokens: Bool

        public init(maximumAttempts: Int = 10, maximumImmediateReplays: Int = 3, deadLetterInvalidTokens: Bool = false)
        {
            self.maximumAttempts = maximumAttempts
            self.maximumImmediateReplays = maximumImmediateReplays
            self.deadLetterInvalidTokens = deadLetterInvalidTokens
        }

        /// Throws naming the `outcomes.…` key of a value outside its range (``ConfigurationBounds``).
        public func validate() throws(SalvoWorkerError) {
            try ConfigurationBounds.maximumAttempts.check(maximumAttempts, key: "outcomes.max_attempts")
            try ConfigurationBounds.maximumReplays.check(maximumImmediateReplays, key: "outcomes.max_replays")
        }
    }
}
