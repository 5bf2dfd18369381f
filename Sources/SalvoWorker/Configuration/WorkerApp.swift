import SalvoAPNs

/// One app the worker sends for: the name jobs use in their `app` field, its bundle id, its
/// credential, and where and how fast its notifications go.
///
/// The credential is loaded once, when the configuration is read; key material is never part of
/// a description, a log line or an error.
public struct WorkerApp: Sendable {
    /// The app's bundle id; topics derive from it (`<bundle>.voip`, …).
    public var bundleID: String
    /// Certificate or provider-token credential. Apps sharing one `.p8` key share one JWT.
    public var credential: APNsCredential
    /// The endpoint per environment kind. A job without `environment` goes to
    /// `defaultEnvironment`; a job naming a kind that is not listed is dead-lettered
    /// (`environment_not_configured`).
    public var endpoints: [APNsEnvironment.Kind: APNsEnvironment]
    /// Default: production.
    public var defaultEnvironment: APNsEnvironment.Kind
    /// Connections, streams, timeouts and transport (TLS trust roots for a mock) of each pool.
    public var pool: APNsConnectionPool.Configuration
    /// The app's sustained send rate; nil means only stream credit limits it. Over-limit sends
    /// wait, they are never dropped.
    public var rateLimit: RateLimit?

    public init(
        bundleID: String,
        credential: APNsCredential,
        endpoints: [APNsEnvironment.Kind: APNsEnvironment] = [.production: .production],
        defaultEnvironment: APNsEnvironment.Kind = .production,
        pool: APNsConnectionPool.Configuration = APNsConnectionPool.Configuration(),
        rateLimit: RateLimit? = nil
    ) {
        self.bundleID = bundleID
        self.credential = credential
        self.endpoints = endpoints
        self.defaultEnvironment = defaultEnvironment
        self.pool = pool
        self.rateLimit = rateLimit
    }

    /// What the job decoder needs to know about this app.
    public var profile: AppProfile { AppProfile(bundleID: bundleID, environment: defaultEnvironment) }

    /// Throws when the bundle id is not a topic, the default environment has no endpoint, the
    /// pool settings are out of range, or the rate limit is.
    public func validate(name: String) throws(SalvoWorkerError) {
        do {
            _ = try APNsTopic(bundleID)
        } catch {
            throw .invalidConfiguration("app \"\(name)\": bundle id \"\(bundleID)\" is not a valid topic")
        }
        guard endpoints[defaultEnvironment] != nil else {
            throw .invalidConfiguration("app \"\(name)\": default environment \(defaultEnvironment.rawValue) has no endpoint")
        }
        do {
            try pool.validate()
        } catch {
            throw .invalidConfiguration("app \"\(name)\": pool: \(error)")
        }
        try rateLimit?.validate("app \"\(name)\": rate limit")
    }
}
