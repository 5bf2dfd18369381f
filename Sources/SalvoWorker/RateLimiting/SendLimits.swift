import SalvoAPNs

/// The app and device rate limits a new send goes through, as one part: the core asks it once
/// per send (and not at all while no limit is configured, the default) and holds what it delays
/// in its delayed-sends scheduler.
struct SendLimits<C: Clock> where C.Duration == Duration {
    /// Whether any rate limit (an app's or the device one) is configured. Without one a send
    /// skips the limiters: asking them cost ~210 instructions per notification (the `Duration`
    /// comparisons are calls into the standard library).
    let apply: Bool
    /// `devices != nil`, asked per send: testing the optional of a struct holding a `C.Instant`
    /// goes through runtime metadata (hot-path rule 3). Both flags come first: a field stored
    /// after one that holds an `Instant` is found through metadata too.
    private let limitsDevices: Bool
    private var apps: AppRateLimiter<C>
    private var devices: DeviceRateLimiter<C>?

    init(configuration: WorkerConfiguration, now: C.Instant) throws(SalvoWorkerError) {
        var limits: [String: RateLimit] = [:]
        for (name, app) in configuration.apps { limits[name] = app.rateLimit }
        self.apps = try AppRateLimiter(configuration: AppRateLimiter.Configuration(limits: limits))
        self.devices = try configuration.deviceRateLimit.map { limit throws(SalvoWorkerError) in
            try DeviceRateLimiter(configuration: DeviceRateLimiter.Configuration(limit: limit), now: now)
        }
        self.limitsDevices = configuration.deviceRateLimit != nil
        self.apply = limitsDevices || configuration.apps.values.contains { $0.rateLimit != nil }
    }

    /// How long a send of `app` would wait for the app's limit now, without reserving it.
    func appDelay(app: String, now: C.Instant) -> Duration {
        apps.delay(app: app, now: now)
    }

    /// Reserves a send of `app` to `token` with both limits. Returns how long it must wait, and
    /// whether the app's limit is the longer wait; nil when it may go now.
    mutating func onSend(app: String, token: DeviceToken, now: C.Instant) -> (delay: Duration, byApp: Bool)? {
        let appDelay = apps.reserve(app: app, now: now)
        let deviceDelay = limitsDevices ? (devices?.reserve(token, now: now) ?? .zero) : .zero
        guard appDelay > .zero || deviceDelay > .zero else { return nil }
        return (max(appDelay, deviceDelay), appDelay >= deviceDelay)
    }
}
