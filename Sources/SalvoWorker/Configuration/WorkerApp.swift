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
    package var profile: AppProfile { AppProfile(bundleID: bundleID, environment: defaultEnvironment) }

    /// Throws when the bundle id is not a topic, the default environment has no endpoint, a pool
    /// setting is out of its range (``ConfigurationBounds``) or the rate limit is. Messages name
    /// the YAML key under `apps.<name>`.
    public func validate(name: String) throws(SalvoWorkerError) {
        let path = "apps.\(name)"
        do {
            _ = try APNsTopic(bundleID)
        } catch {
            throw .invalidConfiguration("\(path).bundle_id: \"\(bundleID)\" is not a valid topic")
        }
        guard endpoints[defaultEnvironment] != nil else {
            throw .invalidConfiguration("\(path).default_environment: \(defaultEnvironment.rawValue) has no endpoint")
        }
        try ConfigurationBounds.connections.check(pool.connectionCount, key: "\(path).pool.connections")
        try ConfigurationBounds.maximumStreams.check(pool.maximumStreamsPerConnection, key: "\(path).pool.max_streams")
        try ConfigurationBounds.connectTimeout.check(
            pool.connection.connectTimeout, key: "\(path).pool.connect_timeout")
        try ConfigurationBounds.requestTimeout.check(
            pool.connection.requestTimeout, key: "\(path).pool.request_timeout")
        try ConfigurationBounds.keepaliveInterval.check(
            pool.connection.keepaliveInterval, key: "\(path).pool.keepalive_interval")
        try ConfigurationBounds.keepaliveTimeout.check(
            pool.connection.keepaliveTimeout, key: "\(path).pool.keepalive_timeout")
        do throws(APNsError) {
            // The settings no key sets (reconnect backoff, queue bounds, transport, HTTP/2).
            try pool.validate()
        } catch {
            throw .invalidConfiguration("\(path).pool: \(error.message)")
        }
        try rateLimit?.validate("\(path).rate_limit")
    }
}
