/// Per-app send rates: each app (credential) may have its own limit, or the default, or none.
/// Over the limit, a send is delayed, never dropped; the delay also backs pressure up through the
/// lanes to the Kafka consumer.
package struct AppRateLimiter<C: Clock>: Sendable where C.Duration == Duration {
    /// Limits by app name. Checked once, by ``validate()``.
    package struct Configuration: Sendable, Hashable {
        /// Limits for particular apps.
        package var limits: [String: RateLimit]
        /// The limit of every app not in `limits`; nil for none. Apple publishes no per-app limit,
        /// so this is for operators protecting a shared key or a downstream. Default: nil.
        package var defaultLimit: RateLimit?

        package init(limits: [String: RateLimit] = [:], defaultLimit: RateLimit? = nil) {
            self.limits = limits
            self.defaultLimit = defaultLimit
        }

        package func validate() throws(SalvoWorkerError) {
            for (app, limit) in limits { try limit.validate("limit of app \"\(app)\"") }
            try defaultLimit?.validate("defaultLimit")
        }
    }

    package let configuration: Configuration
    private var buckets: [String: TokenBucket<C>] = [:]
    /// The app asked for last, when it has no limit: a campaign asks for one app thousands of
    /// times in a row, and an equal string is found without hashing it twice.
    private var lastUnlimitedApp: String?

    package init(configuration: Configuration) throws(SalvoWorkerError) {
        try configuration.validate()
        self.configuration = configuration
    }

    /// How long a send for `app` at `now` would wait, without reserving it.
    package func delay(app: String, now: C.Instant) -> Duration {
        guard app != lastUnlimitedApp, let bucket = buckets[app] else { return .zero }
        return bucket.delay(now: now)
    }

    /// Reserves one send for `app` at `now`; returns how long it must wait.
    package mutating func reserve(app: String, now: C.Instant) -> Duration {
        if app == lastUnlimitedApp { return .zero }
        if let delay = buckets[app]?.reserve(now: now) { return delay }
        guard let limit = configuration.limits[app] ?? configuration.defaultLimit else {
            lastUnlimitedApp = app
            return .zero
        }
        var bucket = TokenBucket<C>(limit: limit, now: now)
        let delay = bucket.reserve(now: now)
        buckets[app] = bucket
        return delay
    }
}
