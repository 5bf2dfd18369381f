import Logging
import NIOCore
import NIOPosix
import SalvoKafka
import SalvoTestSupport
import SalvoWorker

/// One engine for a test (``WorkerEngineRunner``, as `salvo demo` runs it too), with the tests'
/// logger and loop group, a scoped `with` and a wait on its statistics.
final class EngineRunner: Sendable {
    private let runner: WorkerEngineRunner
    var engine: WorkerEngine { runner.engine }

    static let eventLoopGroup = MultiThreadedEventLoopGroup.singleton

    init(_ configuration: WorkerConfiguration) throws {
        runner = try WorkerEngineRunner(
            configuration: configuration, eventLoopGroup: Self.eventLoopGroup, logger: EngineKafka.logger)
    }

    /// Triggers graceful shutdown and returns how long `run()` took to return.
    @discardableResult
    func shutdown() async throws -> Duration {
        try await runner.shutdown()
    }

    /// Runs `body` with a started engine and shuts it down on every path.
    static func with<T>(
        _ configuration: WorkerConfiguration, _ body: (EngineRunner) async throws -> T
    ) async throws -> T {
        let runner = try EngineRunner(configuration)
        do {
            let result = try await body(runner)
            try await runner.shutdown()
            return result
        } catch {
            _ = try? await runner.shutdown()
            throw error
        }
    }

    /// Polls `condition` every 20 ms until it holds or `timeout` passes.
    func waitUntil(
        _ what: String, timeout: Duration = .seconds(45), _ condition: (WorkerStatistics) -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(engine.statistics()) { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TestFailure("timed out waiting for \(what); statistics: \(engine.statistics())")
    }
}

extension WorkerConfiguration {
    /// A worker for tests: app `news` on the mock, the test's topics and group, no listener,
    /// quick retries, no device limit unless a test sets one.
    static func test(kafka: EngineKafka, app: WorkerApp, groupID: String? = nil) -> WorkerConfiguration {
        var configuration = WorkerConfiguration(
            kafka: kafka.client, groupID: groupID ?? kafka.groupID, topics: kafka.topics, apps: ["news": app],
            deviceRateLimit: nil, operations: nil, drainDeadline: .seconds(10))
        configuration.retry.backoff = RetryBackoff(initialDelay: .milliseconds(20), maximumDelay: .milliseconds(100))
        configuration.retry.tooManyRequests = RetryBackoff(initialDelay: .milliseconds(600), maximumDelay: .seconds(1))
        configuration.retry.batchWindow = .milliseconds(5)
        return configuration
    }
}
