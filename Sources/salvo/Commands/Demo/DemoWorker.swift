import Logging
import NIOPosix
import SalvoKafka
import SalvoWorker
import ServiceLifecycle

/// The demo's worker pool: one ``WorkerEngine`` in a `ServiceGroup`, as `salvo worker` runs it,
/// so ``drain()`` is the same graceful shutdown SIGTERM triggers in production (stop fetching,
/// finish in-flight notifications, commit).
final class DemoWorker: Sendable {
    let engine: WorkerEngine
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    init(kafka: KafkaClientConfiguration, topics: WorkerTopics, app: WorkerApp, logger: Logger) throws {
        let configuration = WorkerConfiguration(
            kafka: kafka, groupID: "\(topics.jobs).worker", topics: topics, apps: [DemoScenario.app: app],
            // Every per-user job has its own token, so a device limit would never apply.
            deviceRateLimit: nil, operations: nil, drainDeadline: .seconds(10))
        do {
            engine = try WorkerEngine(
                configuration: configuration, eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: logger)
        } catch {
            throw CommandFailure("cannot start the worker: \(error)")
        }
        var groupConfiguration = ServiceGroupConfiguration(services: [engine], logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = .init(configuration.drainDeadline + .seconds(10))
        let group = ServiceGroup(configuration: groupConfiguration)
        self.group = group
        task = Task { try await group.run() }
    }

    /// Waits until the engine holds partitions, so the load's first jobs are not measured
    /// against the group join; throws after `timeout`.
    func waitUntilReady(timeout: Duration) async throws {
        let deadline = ContinuousClock.now + timeout
        while !engine.isReady {
            guard ContinuousClock.now < deadline else {
                throw CommandFailure("the worker was assigned no partition within \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Graceful shutdown; returns how long the drain took.
    @discardableResult
    func drain() async throws -> Duration {
        let started = ContinuousClock.now
        await group.triggerGracefulShutdown()
        do {
            try await task.value
        } catch {
            throw CommandFailure("the worker stopped on an error: \(error)")
        }
        return started.duration(to: .now)
    }
}
