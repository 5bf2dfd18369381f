import Logging
import NIOCore
import NIOPosix
import NIOSSL
import SalvoHTTP2
import ServiceLifecycle
import Synchronization

/// A mock APNs gateway: HTTP/2 over TLS or h2c, Apple's validation and answers, faults chosen by
/// a ``MockScenario``, an admin listener (`/metrics`, `/stats`, controls) and an optional record
/// of every accepted notification. `salvo mock-apns` runs one; tests embed one:
///
/// ```swift
/// let server = try MockAPNsServer(configuration: configuration)
/// let addresses = try await server.start()     // port 0 → a free port
/// defer { Task { await server.shutdown() } }   // or `await server.shutdown()` at the end
/// ```
///
/// As a swift-service-lifecycle `Service`, ``run()`` starts the server (unless started) and
/// serves until graceful shutdown (SIGTERM in a `ServiceGroup`).
///
/// Controls for tests and operators (also on the admin listener): ``sendGoAway()``,
/// ``resetConnections()``, ``closeConnections()``, ``setScenario(_:)``,
/// ``startShutdownStorm(seconds:)``, ``endShutdownStorm()``, ``stats()``.
public final class MockAPNsServer: Service, Sendable {
    public let configuration: Configuration
    let runtime: MockAPNsRuntime
    private let group: any EventLoopGroup
    private let recorder: MockPushRecorder?
    private let metrics: MockAPNsMetrics
    private let state = Mutex<State>(.idle)

    private enum State {
        case idle
        case starting
        case running(Running)
        case stopped
    }

    private struct Running {
        var apns: any Channel
        var admin: (any Channel)?
        var broadcast: (any Channel)?
        var addresses: Addresses
        var flushTask: RepeatedTask?
    }

    /// - Parameters:
    ///   - listeners: Told about every answered notification (after the record file, if any).
    ///   - eventLoopGroup: Default: NIO's shared singleton group (one loop per core).
    public init(
        configuration: Configuration,
        listeners: [any MockAPNsListener] = [],
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "salvo.mock-apns")
    ) throws(MockAPNsError) {
        try configuration.validate()
        self.configuration = configuration
        self.group = eventLoopGroup
        self.recorder = try configuration.recordPath.map { path throws(MockAPNsError) in
            try MockPushRecorder(path: path)
        }
        let allListeners: [any MockAPNsListener] = (self.recorder.map { [$0] } ?? []) + listeners
        self.runtime = MockAPNsRuntime(configuration: configuration, listeners: allListeners, logger: logger)
        self.metrics = MockAPNsMetrics(counters: self.runtime.counters)
    }

    // MARK: Lifecycle

    /// Binds the listeners and returns where they are. Throws when already started or stopped.
    @discardableResult
    public func start() async throws(MockAPNsError) -> Addresses {
        try self.state.withLock { state throws(MockAPNsError) in
            guard case .idle = state else { throw MockAPNsError(.invalidState, "the server was already started") }
            state = .starting
        }
        do {
            let running = try await self.bind()
            self.state.withLock { $0 = .running(running) }
            self.runtime.logger.info("mock APNs listening", metadata: ["addresses": "\(running.addresses)"])
            return running.addresses
        } catch {
            self.state.withLock { $0 = .stopped }
            throw error
        }
    }

    /// Where the listeners are, once started.
    public var addresses: Addresses? {
        self.state.withLock { state in
            if case .running(let running) = state { return running.addresses }
            return nil
        }
    }

    /// Stops accepting, closes every connection (requests waiting for their latency are
    /// abandoned), flushes listeners and the record file. Safe to call more than once.
    public func shutdown() async {
        let running: Running? = self.state.withLock { state in
            defer { state = .stopped }
            if case .running(let running) = state { return running }
            return nil
        }
        if let running {
            running.flushTask?.cancel()
            try? await running.apns.close()
            try? await running.admin?.close()
            try? await running.broadcast?.close()
            await self.closeConnections()
        }
        for listener in self.runtime.listeners { listener.flush() }
        self.recorder?.close()
    }

    /// Starts (unless started) and serves until graceful shutdown or cancellation.
    public func run() async throws {
        if self.addresses == nil { try await self.start() }
        try? await gracefulShutdown()
        await self.shutdown()
    }

    // MARK: Controls

    /// Sends GOAWAY (NO_ERROR) on every connection; each closes once its requests are answered.
    public func sendGoAway() async {
        await self.forEachConnection { $0.goAwayNow() }
    }

    /// Resets every connection (TCP RST): requests in flight get no answer.
    public func resetConnections() async {
        await self.forEachConnection { $0.resetNow() }
    }

    /// Closes every connection now (TLS close_notify, TCP FIN, no GOAWAY) and waits until they
    /// are closed.
    public func closeConnections() async {
        for channel in self.runtime.registry.all {
            try? await channel.close()
        }
    }

    /// Replaces the scenario. New requests see it at once; `max_concurrent_streams` and the
    /// per-second timers apply to connections opened afterwards.
    public func setScenario(_ scenario: MockScenario) throws(MockAPNsError) {
        try scenario.validate()
        self.runtime.scenarios.replace(with: scenario)
        self.runtime.logger.info("scenario replaced", metadata: ["scenario": "\(scenario.name)"])
    }

    /// The scenario in force.
    public var scenario: MockScenario { self.runtime.scenarios.load().scenario }

    /// Answers every valid request 503 `Shutdown` (and sends GOAWAY) for `seconds` from now.
    /// Throws ``MockAPNsError/Code/invalidConfiguration`` unless `seconds` is within
    /// (0, ``MockScenario/maximumSeconds``] (NaN and infinities included).
    public func startShutdownStorm(seconds: Double) throws(MockAPNsError) {
        guard seconds > 0, seconds <= MockScenario.maximumSeconds else {
            throw MockAPNsError(
                .invalidConfiguration,
                "a shutdown storm lasts more than 0 and at most \(MockScenario.maximumSecondsText) seconds, got \(seconds)"
            )
        }
        self.runtime.startShutdownStorm(seconds: seconds)
    }

    /// Ends a storm started by ``startShutdownStorm(seconds:)`` now (a scenario's periodic storms
    /// go on).
    public func endShutdownStorm() {
        self.runtime.endShutdownStorm()
    }

    /// The Live Activity channels (per app), shared by the channel-management listener and the
    /// broadcast endpoint; tests may create channels here directly.
    public var channels: MockChannelStore { self.runtime.counters.channels }

    /// Totals since start.
    public func stats() -> MockAPNsStats {
        self.runtime.stats()
    }

    /// The Prometheus exposition text `/metrics` serves.
    public func metricsText() -> String {
        String(decoding: self.metrics.render(scenario: self.scenario.name), as: UTF8.self)
    }

    func metricsBytes() -> [UInt8] {
        self.metrics.render(scenario: self.scenario.name)
    }

    /// Writes out what listeners and the record file buffered.
    public func flushListeners() {
        for listener in self.runtime.listeners { listener.flush() }
    }

    private func forEachConnection(_ body: @escaping @Sendable (MockAPNsConnectionHandler) -> Void) async {
        for channel in self.runtime.registry.all {
            try? await channel.eventLoop.submit {
                body(try channel.pipeline.syncOperations.handler(type: MockAPNsConnectionHandler.self))
            }.get()
        }
    }

    // MARK: Binding

    private func bind() async throws(MockAPNsError) -> Running {
        let sslContext: NIOSSLContext?
        switch self.configuration.transport {
        case .h2c: sslContext = nil
        case .tls(let tls): sslContext = try tls.makeContext()
        }
        let runtime = self.runtime
        let apns: any Channel
        do {
            apns = try await ServerBootstrap(group: self.group)
                .serverChannelOption(.backlog, value: 256)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try Self.configureConnection(channel, runtime: runtime, sslContext: sslContext)
                    }
                }
                .bind(host: self.configuration.host, port: self.configuration.port)
                .get()
        } catch {
            throw MockAPNsError(
                .bindFailed, "cannot listen on \(self.configuration.host):\(self.configuration.port)",
                underlying: "\(error)")
        }
        var admin: (any Channel)?
        if let adminHost = self.configuration.adminHost {
            do {
                admin = try await MockAdminListener.bind(
                    host: adminHost, port: self.configuration.adminPort, server: self, group: self.group)
            } catch {
                try? await apns.close()
                throw error
            }
        }
        var broadcast: (any Channel)?
        if let broadcastHost = self.configuration.broadcastHost {
            do {
                broadcast = try await MockChannelManagementListener.bind(
                    host: broadcastHost, port: self.configuration.broadcastPort, runtime: runtime,
                    sslContext: sslContext,
                    group: self.group)
            } catch {
                try? await apns.close()
                try? await admin?.close()
                throw error
            }
        }
        var flushTask: RepeatedTask?
        if !runtime.listeners.isEmpty {
            let listeners = runtime.listeners
            flushTask = self.group.next().scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(1)) { _ in
                for listener in listeners { listener.flush() }
            }
        }
        let addresses = Addresses(
            apns: apns.localAddress!, admin: admin?.localAddress, broadcast: broadcast?.localAddress)
        return Running(apns: apns, admin: admin, broadcast: broadcast, addresses: addresses, flushTask: flushTask)
    }

    /// One connection's pipeline: reset handle, TLS (unless h2c), HTTP/2 session, the mock.
    private static func configureConnection(
        _ channel: any Channel, runtime: MockAPNsRuntime, sslContext: NIOSSLContext?
    ) throws {
        let pipeline = channel.pipeline.syncOperations
        let resetter = MockConnectionResetHandler()
        try pipeline.addHandler(resetter)
        if let sslContext { try pipeline.addHandler(NIOSSLServerHandler(context: sslContext)) }
        let scenario = runtime.scenarios.load()
        // Token connections start at one stream (Apple's rule) until a valid token was answered.
        let startsWithOneStream = !runtime.configuration.tokenKeys.isEmpty && runtime.configuration.validation == .apple
        var http2 = runtime.configuration.http2
        http2.maxConcurrentStreams = startsWithOneStream ? 1 : scenario.scenario.maxConcurrentStreams
        let session = HTTP2SessionHandler(mode: .server, configuration: http2)
        try pipeline.addHandler(session)
        try pipeline.addHandler(
            MockAPNsConnectionHandler(
                runtime: runtime, session: session, resetter: resetter, scenario: scenario,
                startsWithOneStream: startsWithOneStream))
        runtime.registry.add(channel)
    }
}
