import Logging
import NIOCore
import Synchronization

/// The entry point for sending: one ``APNsConnectionPool`` per (credential, environment), created
/// on first use and spread over the event loops of a group, with one provider token per
/// (team, key) shared by all pools of that key.
public final class APNsClient: Sendable {
    private struct State {
        var pools: [APNsPoolKey: APNsConnectionPool] = [:]
        var isShutDown = false
    }

    public let configuration: APNsConnectionPool.Configuration
    private let group: any EventLoopGroup
    private let authorizationSource: @Sendable (APNsTokenCredential) throws(APNsError) -> APNsAuthorizationSource
    private let logger: Logger
    private let state = Mutex(State())

    /// A client whose provider tokens run on the continuous clock (production).
    /// - Parameter configuration: Applies to every pool. Default: `APNsConnectionPool.Configuration()`.
    public convenience init(
        configuration: APNsConnectionPool.Configuration = APNsConnectionPool.Configuration(),
        eventLoopGroup: any EventLoopGroup,
        logger: Logger = Logger(label: "salvo.apns")
    ) throws(APNsError) {
        try self.init(
            configuration: configuration, eventLoopGroup: eventLoopGroup,
            tokenProviders: try APNsTokenProviderRegistry(clock: ContinuousClock()), logger: logger)
    }

    /// A client taking provider tokens from `tokenProviders` (shared with other clients, or on a
    /// test clock).
    public init<C: Clock>(
        configuration: APNsConnectionPool.Configuration = APNsConnectionPool.Configuration(),
        eventLoopGroup: any EventLoopGroup,
        tokenProviders: APNsTokenProviderRegistry<C>,
        logger: Logger = Logger(label: "salvo.apns")
    ) throws(APNsError) where C.Duration == Duration {
        try configuration.validate()
        self.configuration = configuration
        self.group = eventLoopGroup
        self.authorizationSource = { (credential) throws(APNsError) in
            APNsAuthorizationSource(provider: try tokenProviders.provider(for: credential))
        }
        self.logger = logger
    }

    /// The pool for `credential` in `environment`, created (and connecting) on first use.
    /// - Throws: a credential the TLS layer refuses, or ``APNsError/Code/notSent`` after
    ///   ``shutdown()``.
    public func pool(
        for credential: APNsCredential, environment: APNsEnvironment
    ) throws(APNsError) -> APNsConnectionPool {
        let key = APNsPoolKey(credential, environment)
        let result: Result<(pool: APNsConnectionPool, isNew: Bool), APNsError> = self.state.withLock { state in
            if state.isShutDown { return .failure(.notSent("the APNs client is shut down")) }
            if let pool = state.pools[key] { return .success((pool, false)) }
            let created: APNsConnectionPool
            do throws(APNsError) {
                created = try self.makePool(credential, environment)
            } catch {
                return .failure(error)
            }
            state.pools[key] = created
            return .success((created, true))
        }
        let (pool, isNew) = try result.get()
        if isNew { pool.start() }
        return pool
    }

    /// Sends one notification through the pool for its credential and environment.
    public func send(
        _ request: APNsRequest, credential: APNsCredential, environment: APNsEnvironment
    ) async -> APNsOutcome {
        do {
            return try await self.pool(for: credential, environment: environment).send(request)
        } catch {
            return .failed(error)
        }
    }

    /// Shuts every pool down (in-flight requests finish, waiting ones fail as not sent) and
    /// returns when all connections are closed. Later sends fail as not sent.
    public func shutdown() async {
        let pools = self.state.withLock { state in
            state.isShutDown = true
            return Array(state.pools.values)
        }
        await withTaskGroup(of: Void.self) { group in
            for pool in pools { group.addTask { await pool.shutdown() } }
        }
    }

    private func makePool(
        _ credential: APNsCredential, _ environment: APNsEnvironment
    ) throws(APNsError) -> APNsConnectionPool {
        switch credential {
        case .certificate:
            return try APNsConnectionPool(
                credential: credential, environment: environment, configuration: self.configuration,
                eventLoop: self.group.next(), logger: self.logger)
        case .token(let token):
            return try APNsConnectionPool(
                credential, environment, try self.authorizationSource(token), self.configuration, self.group.next(),
                self.logger)
        }
    }
}
