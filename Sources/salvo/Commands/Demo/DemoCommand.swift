import ArgumentParser
import Foundation
import Logging
import SalvoKafka
import SalvoLoadTest
import SalvoPrimitives

/// `make demo`: the whole pipeline in one process with nothing but the apt packages installed.
/// librdkafka's embedded cluster (or `--brokers`), the mock APNs over TLS with a CA generated for
/// the run and JWT verification, a worker engine configured in code against it, and the built-in
/// load (``DemoScenario``) driven open-loop by `LoadTestRun`, measured end to end through the
/// mock's listener. It waits for every expected effect (bounded), drains the worker as SIGTERM
/// would, prints a one-screen summary that sets expectations, observations, the worker's counts
/// and the mock's `/stats` side by side, writes the load-test report, and fails when any of them
/// disagree.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract:
            "Run the whole pipeline (Kafka, worker, mock APNs over TLS, load) in one process and print a summary.",
        discussion: """
            The built-in load at --scale 1: a 200,000-token campaign (20 jobs of 10,000 tokens) \
            and 500 per-user pushes/s for 10 s, 1% Unregistered and 0.5% BadDeviceToken tokens, \
            5 broken jobs. Exits 2 unless every valid token was delivered once, every dead token \
            came back as feedback and every broken job was dead-lettered, as counted by the load \
            generator, the worker and the mock alike; other failures exit as docs/cli.md lists. \
            With --kafka-config or --brokers it runs on that cluster instead of an embedded one.
            """
    )

    /// Without either flag, the embedded cluster; with one, that cluster, where the demo creates
    /// its own topics and deletes them at the end.
    @OptionGroup var kafka: KafkaConnectionOptions

    @Option(help: "Multiply the load's volume (campaign tokens, per-user rate) by this; the schedule stays 10 s.")
    var scale: Double = 1

    @Option(
        name: .customLong("report-dir"), help: "Where summary.txt, demo-summary.txt, report.json and report.html go.")
    var reportDirectory: String = "salvo-demo-report"

    @Flag(help: "Show librdkafka's and the components' logs on stderr.")
    var verbose = false

    /// How long the worker may take to be assigned its partitions.
    static let readyTimeout: Duration = .seconds(30)

    func validate() throws {
        guard scale > 0, scale <= 10 else { throw ValidationError("--scale must be > 0 and at most 10") }
    }

    func run() async throws {
        let logger = CommandLogger.make(label: "salvo.demo", verbose: verbose)
        let started = ContinuousClock.now
        let cpuBefore = CPUTime.current(.process)
        let connection = self.kafka.isGiven ? try self.kafka.client(clientID: "salvo-demo", verbose: verbose) : nil
        let kafka = try await DemoKafka(connection: connection, logger: logger)
        let outcome: DemoRun.Outcome
        do {
            outcome = try await DemoRun(kafka: kafka, scale: scale, logger: logger).run()
        } catch {
            await kafka.shutdown()
            throw error
        }
        await kafka.shutdown()
        let summary = DemoSummary(
            report: outcome.report, worker: outcome.worker, mock: outcome.mock,
            setting: DemoSummary.Setting(
                kafka: kafka.description, mockPort: outcome.mockPort, scale: scale, load: outcome.load),
            cpuSeconds: CPUTime.current(.process) - cpuBefore,
            wallSeconds: (ContinuousClock.now - started).secondsValue,
            drainSeconds: outcome.drain.secondsValue, live: outcome.live)
        let text = summary.text
        print("")
        print(text, terminator: "")
        do {
            let paths = try LoadTestReportWriter.write(outcome.report, to: reportDirectory)
            try Data(text.utf8).write(to: URL(fileURLWithPath: reportDirectory + "/demo-summary.txt"))
            let html = paths.first { $0.hasSuffix(".html") } ?? reportDirectory
            print("  report  \(html) (open it in a browser; also report.json, summary.txt, demo-summary.txt)")
        } catch {
            throw CommandFailure("cannot write the report to \(reportDirectory): \(error)", exit: .software)
        }
        let problems = summary.problems
        guard problems.isEmpty else {
            throw CommandFailure(
                "the demo's counts disagree (\(problems.count) problem(s) listed above)", exit: .objectivesMissed)
        }
    }
}
