/// When an APNs pool is judged unhealthy and how it probes its way back (``PoolHealth``).
/// Checked once, by ``validate()``.
public struct PoolHealthConfiguration: Sendable, Hashable {
    /// Share of failed answers in the sampling window that makes the pool unhealthy. Default: 0.5.
    public var failureShare: Double
    /// Answers the window must hold before the share counts, so a few unlucky requests on a quiet
    /// pool do not stop it. Default: 20.
    public var minimumSamples: Int
    /// How far back answers count. Default: 10 s.
    public var sampleWindow: Duration
    /// Requests let through per probe. Default: 5.
    public var probeRequests: Int
    /// First wait before probing; doubled after each failed probe up to ``maximumProbeDelay``.
    /// Default: 1 s.
    public var initialProbeDelay: Duration
    /// Default: 30 s.
    public var maximumProbeDelay: Duration

    public init(
        failureShare: Double = 0.5,
        minimumSamples: Int = 20,
        sampleWindow: Duration = .seconds(10),
        probeRequests: Int = 5,
        initialProbeDelay: Duration = .seconds(1),
        maximumProbeDelay: Duration = .seconds(30)
    ) {
        self.failureShare = failureShare
        self.minimumSamples = minimumSamples
        self.sampleWindow = sampleWindow
        self.probeRequests = probeRequests
        self.initialProbeDelay = initialProbeDelay
        self.maximumProbeDelay = maximumProbeDelay
    }

    public func validate() throws(SalvoWorkerError) {
        try ConfigurationBounds.failureShare.check(failureShare, key: "health.failure_share")
        try ConfigurationBounds.minimumSamples.check(minimumSamples, key: "health.minimum_samples")
        try ConfigurationBounds.sampleWindow.check(sampleWindow, key: "health.sample_window")
        try ConfigurationBounds.probeRequests.check(probeRequests, key: "health.probe_requests")
        try ConfigurationBounds.probeDelay.check(initialProbeDelay, key: "health.initial_probe_delay")
        try ConfigurationBounds.probeDelay.check(maximumProbeDelay, key: "health.max_probe_delay")
        guard initialProbeDelay <= maximumProbeDelay else {
            throw .invalidConfiguration(
                "health.initial_probe_delay: \(initialProbeDelay) must not exceed health.max_probe_delay (\(maximumProbeDelay))"
            )
        }
    }
}
