import Logging
import NIOCore

/// The connections to APNs for one credential and environment: ``Configuration/connectionCount``
/// HTTP/2 connections on one event loop, least-loaded routing by free stream credit, reconnects
/// with exponential backoff and jitter, GOAWAY handling that drains and replaces a connection,
/// and replays of everything APNs never processed.
///
/// **Bounded in flight.** At most the sum of the connections' stream limits is in flight; a
/// caller beyond that waits, suspended, in arrival order, until credit frees. Nothing is buffered
/// without bound: ``Configuration/maximumWaitingCallers`` caps the waiting callers.
///
/// Two ways in:
/// - ``send(_:)-(APNsRequest)``: one notification, awaits its outcome.
/// - ``send(_:onOutcome:)``: the worker's hot path. A batch costs one hop to the event loop and no
///   task per notification; the call returns once every request of the batch is in flight, and
///   outcomes arrive through the handler, on the pool's event loop (keep it short).
///
/// Every request gets exactly one outcome, on every path including shutdown.
public final class APNsConnectionPool: Sendable {
    public let environment: APNsEnvironment
    public let eventLoop: any EventLoop
    private let core: NIOLoopBoundBox<APNsPoolCore>

    /// A pool for a certificate credential, or a token credential with a provider of its own
    /// (pools of one key should share one: use the initializer taking a `tokenProvider`, or
    /// ``APNsClient``, which does).
    public convenience init(
        credential: APNsCredential,
        environment: APNsEnvironment,
        configuration: Configuration = Configuration(),
        eventLoop: any EventLoop,
        logger: Logger = Logger(label: "salvo.apns")
    ) throws(APNsError) {
        var source: APNsAuthorizationSource?
        if case .token(let tokenCredential) = credential {
            source = APNsAuthorizationSource(provider: try APNsTokenProvider(credential: tokenCredential))
        }
        try self.init(credential, environment, source, configuration, eventLoop, logger)
    }

    /// A pool for a token credential whose provider token is shared with other pools and
    /// connections (one token per team and key, as Apple asks).
    public convenience init<C: Clock>(
        credential: APNsTokenCredential,
        tokenProvider: APNsTokenProvider<C>,
        environment: APNsEnvironment,
        configuration: Configuration = Configuration(),
        eventLoop: any EventLoop,
        logger: Logger = Logger(label: "salvo.apns")
    ) throws(APNsError) where C.Duration == Duration {
        try self.init(
            .token(credential), environment, APNsAuthorizationSource(provider: tokenProvider), configuration, eventLoop,
            logger)
    }

    /// A pool whose token credential (if any) is served by `source`.
    convenience init(
        _ credential: APNsCredential,
        _ environment: APNsEnvironment,
        _ source: APNsAuthorizationSource?,
        _ configuration: Configuration,
        _ eventLoop: any EventLoop,
        _ logger: Logger
    ) throws(APNsError) {
        try configuration.validate()
        let metrics = APNsPoolMetrics(pool: configuration.name ?? Self.label(credential, environment))
        var logger = logger
        logger[metadataKey: "apns-pool"] = "\(metrics.pool)"
        let factory = try APNsConnectionFactory(
            environment: environment, credential: credential, configuration: configuration.connection,
            eventLoop: eventLoop, authorizationSource: source, metrics: metrics, logger: logger)
        self.init(
            factory: factory, environment: environment, configuration: configuration, eventLoop: eventLoop,
            metrics: metrics, logger: logger, random: { Double.random(in: 0...1) })
    }

    /// A pool over any connection factory (tests use fakes).
    init(
        factory: any APNsPoolConnectionFactory,
        environment: APNsEnvironment,
        configuration: Configuration,
        eventLoop: any EventLoop,
        metrics: APNsPoolMetrics,
        logger: Logger,
        random: @escaping @Sendable () -> Double
    ) {
        self.environment = environment
        self.eventLoop = eventLoop
        self.core = NIOLoopBoundBox.makeBoxSendingValue(
            APNsPoolCore(
                factory: factory, configuration: configuration, eventLoop: eventLoop, metrics: metrics, logger: logger,
                random: random),
            eventLoop: eventLoop)
    }

    /// Opens the connections now rather than on the first send.
    public func start() {
        let core = self.core
        self.eventLoop.execute { core.value.start() }
    }

    /// Sends one notification and waits for its outcome (queued replays included).
    public func send(_ request: APNsRequest) async -> APNsOutcome {
        let core = self.core
        return await withCheckedContinuation { continuation in
            self.eventLoop.execute {
                core.value.submit([request], sink: .single(continuation), admitted: nil)
            }
        }
    }

    /// Sends a batch: returns once every request is in flight (suspending while the pool has no
    /// free stream credit); `onOutcome(index, outcome)` reports each request by its position in
    /// `requests`, on the pool's event loop.
    public func send(_ requests: [APNsRequest], onOutcome: @escaping @Sendable (Int, APNsOutcome) -> Void) async {
        guard !requests.isEmpty else { return }
        let core = self.core
        await withCheckedContinuation { (admitted: CheckedContinuation<Void, Never>) in
            self.eventLoop.execute {
                core.value.submit(requests, sink: .handler(onOutcome), admitted: admitted)
            }
        }
    }

    /// The batch hot path for a caller already on ``eventLoop`` (the worker's dispatch core, whose
    /// pools share its loop): no hop, no task, no continuation. What current credit does not
    /// admit waits in the pool's queue behind earlier callers, as with ``send(_:onOutcome:)``;
    /// the caller bounds its own in-flight window so that queue stays short.
    public func submit(_ requests: [APNsRequest], onOutcome: @escaping @Sendable (Int, APNsOutcome) -> Void) {
        self.eventLoop.preconditionInEventLoop()
        guard !requests.isEmpty else { return }
        self.core.value.submit(requests, sink: .handler(onOutcome), admitted: nil)
    }

    /// Stops taking requests (they fail as ``APNsError/Code/notSent``), fails those waiting for
    /// credit the same way, lets those in flight finish, closes every connection, and returns
    /// once all are closed.
    public func shutdown() async {
        let promise = self.eventLoop.makePromise(of: Void.self)
        let core = self.core
        self.eventLoop.execute { core.value.shutdown(promise: promise) }
        try? await promise.futureResult.get()
    }

    /// A view of the pool's state, taken on its event loop.
    func snapshot() async -> APNsPoolSnapshot {
        let core = self.core
        return await withCheckedContinuation { continuation in
            self.eventLoop.execute { continuation.resume(returning: APNsPoolSnapshot(core.value)) }
        }
    }

    /// The default `pool` metric dimension and log label, `<credential>/<environment>`: the team
    /// and key id of a token credential, the bundle id of a certificate.
    static func label(_ credential: APNsCredential, _ environment: APNsEnvironment) -> String {
        switch credential {
        case .certificate(let certificate):
            return "\(certificate.bundleID ?? "certificate")/\(environment.kind.rawValue)"
        case .token(let token): return "\(token.teamID).\(token.keyID)/\(environment.kind.rawValue)"
        }
    }
}
