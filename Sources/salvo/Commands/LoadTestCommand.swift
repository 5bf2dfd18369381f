import ArgumentParser
import Foundation
import SalvoKafka
import SalvoLoadTest

/// Drives an external worker and mock with a load scenario and writes the report.
struct LoadTestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "loadtest",
        abstract: "Produce a load scenario's jobs open-loop and measure what the worker delivers.",
        discussion: """
            Jobs go to the scenario's job topics at their scheduled times; deliveries are read \
            from the mock's record file (--mock-record) or, without it, paged from the mock's \
            admin listener (--mock-admin, GET /deliveries), so the mock may run in another \
            container or pod; feedback and dead letters come from their topics. Latency is \
            measured from each job's scheduled time to the mock's record. A scenario's control: \
            actions produce campaign commands (cancel, pause, resume) to its control topic and the \
            report shows what the fleet sent after each, with sent + cancelled from the campaigns \
            topic (not read with --no-topics). Exits 0 when every \
            expectation and objective was met, 2 when the run finished but did not meet them, \
            and the table of docs/cli.md on an error (78 a bad scenario or Kafka configuration, \
            69 a broker or the mock out of reach). See loadtest/README.md.
            """
    )

    @Option(help: "The load scenario file (kind: load), YAML or JSON.")
    var scenario: String

    @OptionGroup var kafka: KafkaConnectionOptions

    @Option(
        name: .customLong("mock-record"), help: "The mock's --record file, tailed during the run (same host or volume)."
    )
    var mockRecord: String?

    @Option(
        name: .customLong("mock-admin"),
        help:
            "The mock's admin base URL (http://HOST:PORT): deliveries from /deliveries unless --mock-record is given; /stats at the end."
    )
    var mockAdmin: String?

    @Option(
        name: .customLong("worker-metrics"),
        help: "The worker's metrics URL, sampled every second for salvo_consumer_lag.")
    var workerMetrics: String?

    @Option(name: .customLong("report-dir"), help: "Where summary.txt, report.json and report.html go.")
    var reportDirectory: String = "loadtest-report"

    @Option(
        name: .customLong("duration-scale"), help: "Multiply every phase's duration (and the drain) by this factor.")
    var durationScale: Double = 1

    @Flag(name: .customLong("no-topics"), help: "Do not read the feedback, dead-letter and campaign progress topics.")
    var noTopics = false

    @Flag(help: "Show librdkafka's logs on stderr.")
    var verbose = false

    func validate() throws {
        guard durationScale > 0 else { throw ValidationError("--duration-scale must be > 0") }
        guard mockRecord != nil || mockAdmin != nil else {
            throw ValidationError(
                "give --mock-admin URL (deliveries over HTTP, totals) and/or --mock-record FILE (deliveries from the file)"
            )
        }
    }

    func run() async throws {
        let logger = CommandLogger.make(label: "salvo.loadtest", verbose: verbose)
        let loaded: LoadTestScenario
        do {
            loaded = try LoadTestScenario.load(path: scenario).scaled(by: durationScale)
        } catch {
            throw CommandFailure(error.description, exit: CommandExit.status(of: error))
        }
        let client = try kafka.client(clientID: "salvo-loadtest", verbose: verbose)
        var producerConfiguration = KafkaProducerConfiguration(client: client)
        producerConfiguration.linger = .milliseconds(5)
        producerConfiguration.client.properties.merge(LoadTestRun.producerProperties) { _, run in run }
        let producer = try KafkaProducer(configuration: producerConfiguration, logger: logger)
        let observe = LoadTestRun.Observe(
            kafka: noTopics ? nil : client, mockRecordFile: mockRecord, mockAdminURL: mockAdmin,
            workerMetricsURL: workerMetrics)
        let run = LoadTestRun(scenario: loaded, producer: producer, observe: observe, logger: logger)
        FileHandle.standardError.write(
            Data(
                "loadtest \(run.runID): \(run.plan.jobs) jobs, \(run.plan.notifications) notifications over \(loaded.durationSeconds) s\n"
                    .utf8))
        let report: LoadTestReport
        do {
            report = try await run.run()
        } catch {
            await producer.shutdown(timeout: .seconds(5))
            throw CommandFailure(error.description, exit: CommandExit.status(of: error))
        }
        await producer.shutdown(timeout: .seconds(5))
        print(LoadTestTextReport.render(report), terminator: "")
        do {
            let paths = try LoadTestReportWriter.write(report, to: reportDirectory)
            print("report: " + paths.joined(separator: ", "))
        } catch {
            throw CommandFailure(error.description, exit: .software)
        }
        if !report.passed { throw CommandExit.objectivesMissed.exitCode }
    }
}
