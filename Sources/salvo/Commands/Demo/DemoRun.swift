import Foundation
import Logging
import SalvoKafka
import SalvoLoadTest
import SalvoMockAPNs
import SalvoWorker

/// One pass of the demo on a ready Kafka: starts the mock and the worker, drives the load,
/// drains the worker and stops everything it started, on every path.
///
/// Order matters: the load run exists first because the mock reports deliveries to it (its
/// listener), and the worker starts last because it needs the mock's port.
struct DemoRun {
    struct Outcome {
        /// The load-test report, with the mock's final `/stats` folded into it and judged.
        var report: LoadTestReport
        var worker: WorkerStatistics
        var mock: MockAPNsStats
        var mockPort: Int
        var load: String
        var drain: Duration
        var live = ChannelsDemo()
    }

    let kafka: DemoKafka
    let scale: Double
    let logger: Logger

    func run() async throws -> Outcome {
        let scenario = DemoScenario.make(scale: scale, topics: kafka.loadTopics)
        do {
            try scenario.validate()
        } catch {
            throw CommandFailure("the built-in load at scale \(scale) is invalid: \(error.description)")
        }
        var producerConfiguration = KafkaProducerConfiguration(client: kafka.client)
        producerConfiguration.linger = .milliseconds(5)
        producerConfiguration.client.properties.merge(LoadTestRun.producerProperties) { _, run in run }
        let producer = try KafkaProducer(configuration: producerConfiguration, logger: logger)
        let run = LoadTestRun(
            scenario: scenario, producer: producer, observe: LoadTestRun.Observe(kafka: kafka.client), logger: logger)
        let mock: DemoMock
        do {
            mock = try await DemoMock.start(listeners: [run.mockListener], logger: logger)
        } catch {
            await producer.shutdown(timeout: .seconds(5))
            throw error
        }
        let measured: (report: LoadTestReport, worker: WorkerStatistics, drain: Duration)
        do {
            measured = try await measure(run, mock: mock)
        } catch {
            await producer.shutdown(timeout: .seconds(5))
            await mock.server.shutdown()
            throw error
        }
        await producer.shutdown(timeout: .seconds(5))
        let stats = mock.server.stats()
        let live = await ChannelsDemo.run(mock: mock)  // after the snapshot: the load's counts stay its own
        await mock.server.shutdown()
        var report = measured.report
        report.mockStats = stats
        report.problems =
            LoadTestReport.problems(
                of: report.snapshot, mockStats: stats, checksFeedback: true, checksDeadLetters: true)
            + report.control.flatMap(\.problems)
        return Outcome(
            report: report, worker: measured.worker, mock: stats, mockPort: mock.port,
            load: Self.describe(scenario, plan: run.plan),
            drain: measured.drain, live: live)
    }

    /// Runs the worker for the load; the worker is drained on every path.
    private func measure(
        _ run: LoadTestRun, mock: DemoMock
    ) async throws -> (report: LoadTestReport, worker: WorkerStatistics, drain: Duration) {
        let worker = try DemoWorker(
            kafka: kafka.client, topics: kafka.workerTopics, app: try mock.workerApp(), logger: logger)
        let report: LoadTestReport
        do {
            try await worker.waitUntilReady(timeout: DemoCommand.readyTimeout)
            print("salvo demo: \(kafka.description); mock APNs (TLS) on 127.0.0.1:\(mock.port); worker ready")
            print("salvo demo: \(Self.describe(run.scenario, plan: run.plan)); run \(run.runID)")
            fflush(nil)  // nil: every stream, so a pipe reader sees the lines before the progress on stderr
            report = try await run.run()
        } catch let error as LoadTestError {
            _ = try? await worker.drain()
            throw CommandFailure("the load run failed: \(error.description)")
        } catch {
            _ = try? await worker.drain()
            throw error
        }
        let drain = try await worker.drain()
        return (report, worker.engine.statistics(), drain)
    }

    static func describe(_ scenario: LoadTestScenario, plan: LoadTestPlan) -> String {
        let phase = scenario.phases[0]
        let campaign =
            phase.campaign.map { campaign in
                let jobs = Int((phase.durationSeconds / campaign.everySeconds).rounded(.up))
                return "\(jobs) campaign jobs × \(campaign.tokensPerJob) tokens"
            } ?? "no campaign"
        let cancelled = phase.campaigns.dropFirst().map { campaign in
            " + \(DemoScenario.cancelledJobs) × \(campaign.tokensPerJob) of campaign \(campaign.name ?? "") (cancelled at \(Int(DemoScenario.cancelAt * 100)) %)"
        }.joined()
        return
            "\(plan.jobs) jobs, \(plan.notifications) notifications over \(Int(phase.durationSeconds)) s: \(campaign)\(cancelled) "
            + String(format: "+ %.0f per-user pushes/s", phase.rate)
            + ", \(DemoScenario.badJobs) broken jobs, 1% Unregistered + 0.5% BadDeviceToken tokens"
    }
}
