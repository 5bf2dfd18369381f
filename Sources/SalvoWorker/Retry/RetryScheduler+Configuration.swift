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
        /// Longer delays go straight to the retry topic instead of holding memory. Default: 2 min.
        public var maximumHeldDelay: Duration

        public init(
            backoff: RetryBackoff = RetryBackoff(initialDelay: .milliseconds(500), maximumDelay: .seconds(60)),
            tooManyRequests: RetryBackoff = RetryBackoff(initialDelay: .seconds(10), maximumDelay: .seconds(300)),
            batchWindow: Duration = .milliseconds(100),
            maximumHeldNotifications: Int = 100_000,
            maximumHeldDelay: Duration = .seconds(120)
        ) {
            self.backoff = backoff
            self.tooManyRequests = tooManyRequests
            self.batchWindow = batchWindow
            self.maximumHeldNotifications = maximumHeldNotifications
            self.maximumHeldDelay = maximumHeldDelay
        }

        public func validate() throws(SalvoWorkerError) {
            try backoff.validate("backoff")
            try tooManyRequests.validate("tooManyRequests")
            guard batchWindow >= .milliseconds(1) else {
                throw .invalidConfiguration("batchWindow must be at least 1 ms, got \(batchWindow)")
            }
            guard maximumHeldNotifications >= 0 else {
                throw .invalidConfiguration("maximumHeldNotifications must be ≥ 0, got \(maximumHeldNotifications)")
            }
            guard maximumHeldDelay >= .zero else {
                throw .invalidConfiguration("maximumHeldDelay must be ≥ 0, got \(maximumHeldDelay)")
            }
        }
    }
}
