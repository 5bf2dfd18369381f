import Logging
import NIOPosix
import SalvoKafka
import SalvoWorker

/// The demo's worker pool: one ``WorkerEngine`` in a `ServiceGroup`, as `salvo worker` runs it,
/// so ``drain()`` is the same graceful shutdown SIGTERM triggers in production (stop fetching,
/// finish in-flight notifications, commit).
final class DemoWorker: Sendable {
    private let runner: WorkerEngineRunner
    var engine: WorkerEngine { runner.engine }

    init(kafka: KafkaClientConfiguration, topics: WorkerTopics, app: WorkerApp, logger: Logger) throws {
        let configuration = WorkerConfiguration(
            kafka: kafka, groupID: "\(topics.jobs).worker", topics: topics, apps: [DemoScenario.app: app],
            // Every per-user job has its own token, so a device limit would never apply.
            deviceRateLimit: nil, operations: nil, drainDeadline: .seconds(10))
        do {
            runner = try WorkerEngineRunner(
                configuration: configuration, eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: logger)
        } catch {
            throw CommandFailure("cannot start the worker: \(error)")
        }
    }

    /// Waits until the engine holds partitions, so the load's first jobs are not measured
    /// against the group join; throws after `timeout`.
    func waitUntilReady(timeout: Duration) async throws {
        guard try await runner.waitUntilReady(timeout: timeout) else {
            throw CommandFailure("the worker was assigned no partition within \(timeout)")
        }
    }

    /// Graceful shutdown; returns how long the drain took.
    @discardableResult
    func drain() async throws -> Duration {
        do {
            return try await runner.shutdown()
        } catch {
            throw CommandFailure("the worker stopped on an error: \(error)")
        }
    }
}
