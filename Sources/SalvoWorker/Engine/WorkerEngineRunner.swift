import Logging
import NIOCore
import ServiceLifecycle

/// One engine running in a `ServiceGroup`, as `salvo worker` runs it but without its signal
/// handling: ``shutdown()`` is the graceful shutdown SIGTERM triggers (stop fetching, finish the
/// in-flight notifications, commit). For whatever runs an engine in-process: `salvo demo` and the
/// engine tests.
package final class WorkerEngineRunner: Sendable {
    package let engine: WorkerEngine
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    /// Starts the engine; `run()` goes on in a task until ``shutdown()``.
    /// - Parameter startStepFinished: See ``WorkerEngine/StartStepFinished``.
    package init(
        configuration: WorkerConfiguration, eventLoopGroup: any EventLoopGroup, logger: Logger,
        startStepFinished: WorkerEngine.StartStepFinished? = nil
    ) throws(SalvoWorkerError) {
        engine = try WorkerEngine(
            configuration: configuration, eventLoopGroup: eventLoopGroup, logger: logger,
            startStepFinished: startStepFinished)
        var groupConfiguration = ServiceGroupConfiguration(services: [engine], logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = .init(configuration.drainDeadline + .seconds(10))
        let group = ServiceGroup(configuration: groupConfiguration)
        self.group = group
        task = Task { try await group.run() }
    }

    /// Waits until the engine holds a partition (``WorkerEngine/isReady``); false after `timeout`.
    package func waitUntilReady(timeout: Duration) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !engine.isReady {
            guard ContinuousClock.now < deadline else { return false }
            try await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    /// Triggers graceful shutdown and returns how long `run()` took to return; rethrows what
    /// `run()` threw.
    @discardableResult
    package func shutdown() async throws -> Duration {
        let started = ContinuousClock.now
        await group.triggerGracefulShutdown()
        try await task.value
        return started.duration(to: .now)
    }
}
