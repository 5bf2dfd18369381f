import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import Prometheus
import ServiceLifecycle
import Synchronization

/// The worker's operations listener: `/metrics`, `/health/started`, `/health/live`,
/// `/health/ready` over plain HTTP/1.1 (routes in ``WorkerOperationsRouter``, probes in
/// ``WorkerProbes``).
///
/// A `Service`: `run()` binds, serves until graceful shutdown or cancellation, then closes. Put
/// it *first* in the worker's `ServiceGroup`: services shut down in reverse order, so the
/// listener keeps answering scrapes and probes (readiness 503) while the engine drains.
package final class WorkerOperationsServer: Service, Sendable {
    private let listener: WorkerOperationsListener
    private let router: WorkerOperationsRouter
    private let eventLoopGroup: any EventLoopGroup
    private let logger: Logger
    private let state = Mutex(StateMachine())

    /// - Parameters:
    ///   - metrics: Where the worker's metrics live (``WorkerMetricsBootstrap``).
    ///   - probes: Polled on every `/health/*` request; each must be cheap and never block.
    package init(
        listener: WorkerOperationsListener,
        metrics: WorkerMetricsBootstrap,
        probes: WorkerProbes,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "salvo.worker.operations")
    ) {
        self.listener = listener
        self.router = WorkerOperationsRouter(metrics: metrics, probes: probes)
        self.eventLoopGroup = eventLoopGroup
        self.logger = logger
    }

    /// A listener whose startup and liveness probes always answer 200.
    package convenience init(
        listener: WorkerOperationsListener,
        metrics: WorkerMetricsBootstrap,
        isReady: @escaping @Sendable () -> Bool,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "salvo.worker.operations")
    ) {
        self.init(
            listener: listener, metrics: metrics, probes: WorkerProbes(ready: isReady),
            eventLoopGroup: eventLoopGroup, logger: logger)
    }

    /// The bound port (the one picked when the listener asked for port 0), nil unless listening.
    package var port: Int? {
        state.withLock { $0.channel?.localAddress?.port }
    }

    /// Binds the listener and returns the bound port. Calling it again while listening returns
    /// the same port; after `shutdown()` it throws.
    @discardableResult
    package func start() async throws(SalvoWorkerError) -> Int {
        switch state.withLock({ $0.startRequested() }) {
        case .alreadyListening:
            if let port { return port }
            throw .invalidConfiguration("operations listener on \(listener.host):\(listener.port) was shut down")
        case .refuse:
            throw .invalidConfiguration(
                "operations listener on \(listener.host):\(listener.port) is starting or was shut down")
        case .bind:
            break
        }
        let channel: any Channel
        do {
            channel = try await bind()
        } catch {
            state.withLock { $0.bindFailed() }
            throw .invalidConfiguration(
                "operations listener: cannot listen on \(listener.host):\(listener.port): \(error)")
        }
        switch state.withLock({ $0.bound(channel) }) {
        case .keep:
            let port = channel.localAddress?.port ?? listener.port
            logger.info("operations listener up", metadata: ["address": "\(listener.host):\(port)"])
            return port
        case .close:
            try? await channel.close()
            throw .invalidConfiguration(
                "operations listener on \(listener.host):\(listener.port) was shut down while binding")
        }
    }

    /// Binds (unless `start()` already did), serves until graceful shutdown or cancellation, and
    /// closes the listener.
    package func run() async throws {
        try await start()
        guard let channel = state.withLock({ $0.channel }) else { return }
        try? await withTaskCancellationOrGracefulShutdownHandler {
            try await channel.closeFuture.get()
        } onCancelOrGracefulShutdown: {
            _ = self.closeListener()
        }
    }

    /// Stops listening and waits until the listening socket is closed. Open connections finish
    /// the request they are answering.
    package func shutdown() async {
        guard let channel = closeListener() else { return }
        try? await channel.closeFuture.get()
    }

    @discardableResult
    private func closeListener() -> (any Channel)? {
        guard case .close(let channel) = state.withLock({ $0.shutdownRequested() }) else { return nil }
        channel.close(promise: nil)
        logger.info("operations listener closed")
        return channel
    }

    private func bind() async throws -> any Channel {
        let router = self.router
        return try await ServerBootstrap(group: eventLoopGroup)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(WorkerOperationsHandler(router: router))
                }
            }
            .bind(host: listener.host, port: listener.port)
            .get()
    }
}
