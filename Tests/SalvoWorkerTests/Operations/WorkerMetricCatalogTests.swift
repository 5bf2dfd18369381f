import Foundation
import Metrics
import Prometheus
import SalvoTestSupport
import Testing

@testable import SalvoWorker

/// Every family carries a `# HELP` line, from a catalog that lists exactly docs/metrics.md's names.
@Suite("Worker metric catalog and factory")
struct WorkerMetricCatalogTests {
    @Test("the catalog's names are docs/metrics.md's names, each with a one-line help text")
    func catalogMatchesDocumentation() throws {
        let documented = MetricNames.documented(markdown: try RepositoryFiles.text("docs/metrics.md"))
        let catalogued = Set(WorkerMetricCatalog.help.keys)
        #expect(
            documented.subtracting(catalogued).isEmpty,
            "documented without help: \(documented.subtracting(catalogued).sorted())")
        #expect(
            catalogued.subtracting(documented).isEmpty,
            "help for undocumented: \(catalogued.subtracting(documented).sorted())")
        for (name, help) in WorkerMetricCatalog.help {
            #expect(!help.isEmpty && !help.contains("\n") && help.count <= 140, "\(name): \(help)")
        }
        for name in WorkerMetricCatalog.durationBuckets.keys { #expect(catalogued.contains(name), "\(name)") }
    }

    @Test("swift-metrics instruments made through the factory export HELP and TYPE, and promtool accepts them")
    func exportsHelp() throws {
        let bootstrap = WorkerMetricsBootstrap()
        let factory = bootstrap.factory
        Counter(
            label: "salvo_jobs_total", dimensions: [("lane", "priority"), ("result", "completed")], factory: factory
        ).increment()
        Gauge(label: "salvo_worker_ready", factory: factory).record(1)
        Metrics.Timer(
            label: "salvo_apns_request_duration_seconds",
            dimensions: [("pool", "news/production"), ("status_class", "2xx")], factory: factory
        )
        .recordNanoseconds(3_000_000)
        bootstrap.publishBuildInfo(version: "1.2.3", librdkafka: "2.16.0", nghttp2: "1.52.0")
        let text = bootstrap.emitToString()
        for name in [
            "salvo_jobs_total", "salvo_worker_ready", "salvo_apns_request_duration_seconds", "salvo_build_info",
        ] {
            #expect(text.contains("# HELP \(name) \(WorkerMetricCatalog.help[name]!)\n"), "\(text)")
        }
        #expect(text.contains(#"salvo_build_info{version="1.2.3",librdkafka="2.16.0",nghttp2="1.52.0"} 1"#), "\(text)")
        // The request-duration buckets start at a millisecond.
        #expect(
            text.contains(
                #"salvo_apns_request_duration_seconds_bucket{pool="news/production",status_class="2xx",le="0.001"} 0"#),
            "\(text)")
        #expect(
            text.contains(
                #"salvo_apns_request_duration_seconds_bucket{pool="news/production",status_class="2xx",le="0.005"} 1"#),
            "\(text)")

        let lint = try Self.promtool(text)
        #expect(lint.status == 0, "\(lint.output)")
    }

    @Test("a destroyed gauge leaves the exposition (a revoked partition's lag)")
    func destroyRemovesSeries() {
        let bootstrap = WorkerMetricsBootstrap()
        let kept = Gauge(
            label: "salvo_consumer_lag", dimensions: [("topic", "t"), ("partition", "0")], factory: bootstrap.factory)
        let revoked = Gauge(
            label: "salvo_consumer_lag", dimensions: [("topic", "t"), ("partition", "1")], factory: bootstrap.factory)
        kept.record(5)
        revoked.record(7)
        revoked.destroy()
        let text = bootstrap.emitToString()
        #expect(text.contains(#"salvo_consumer_lag{topic="t",partition="0"} 5"#))
        #expect(!text.contains(#"partition="1""#), "\(text)")
    }

    private static func promtool(_ exposition: String) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/promtool")
        process.arguments = ["check", "metrics"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        input.fileHandleForWriting.write(Data(exposition.utf8))
        try input.fileHandleForWriting.close()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }
}
