import Foundation
import Testing

@Suite("Alert rules and dashboard")
struct AlertRuleTests {
    @Test("promtool check rules accepts the alert rules")
    func promtoolAccepts() throws {
        // Debian's `prometheus` package (scripts/install-deps.sh test) provides promtool.
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/promtool")
        process.arguments = ["check", "rules", RepositoryFiles.path("ops/prometheus/salvo-rules.yaml")]
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains("SUCCESS"), "\(text)")
    }

    @Test("every metric the alerts use is in docs/metrics.md")
    func alertMetricsAreDocumented() throws {
        let documented = MetricNames.documented(markdown: try RepositoryFiles.text("docs/metrics.md"))
        let rules = try #require(try RepositoryFiles.yamlDocuments("ops/prometheus/salvo-rules.yaml").first as? [String: Any])
        let used = MetricNames.referenced(inRules: rules)
        #expect(used.count >= 10)
        #expect(used.subtracting(documented).isEmpty, "undocumented: \(used.subtracting(documented).sorted())")
    }

    @Test("every metric the dashboard uses is in docs/metrics.md, and it shows every documented metric")
    func dashboardMetricsAreDocumented() throws {
        let documented = MetricNames.documented(markdown: try RepositoryFiles.text("docs/metrics.md"))
        let dashboard = try #require(try RepositoryFiles.json("ops/grafana/salvo-worker.json") as? [String: Any])
        let used = MetricNames.referenced(inDashboard: dashboard)
        #expect(used.subtracting(documented).isEmpty, "undocumented: \(used.subtracting(documented).sorted())")
        #expect(documented.subtracting(used).isEmpty, "not on the dashboard: \(documented.subtracting(used).sorted())")
    }

    @Test("the artifacts together use every documented metric and nothing else")
    func artifactsUseTheContract() throws {
        #expect(try MetricNames.usedByArtifacts() == MetricNames.documentedInRepository())
    }

    @Test("name extraction: families, histogram series, labels and functions ignored")
    func extraction() {
        let expression = #"histogram_quantile(0.99, sum by (le) (rate(salvo_end_to_end_latency_seconds_bucket{lane="salvo_x"}[5m]))) / salvo_jobs_total and on(pod) salvo_worker_ready:ratio"#
        #expect(MetricNames.referenced(inPromQL: expression) == [
            "salvo_end_to_end_latency_seconds", "salvo_jobs_total", "salvo_worker_ready:ratio",
        ])
        #expect(MetricNames.documented(markdown: "| name |\n|---|\n| `salvo_a_total` | counter |\n| `other` |\n") == ["salvo_a_total"])
        let scrape = "# HELP salvo_a_total x\n# TYPE salvo_a_total counter\nsalvo_a_total 1\n# TYPE salvo_b_seconds histogram\n"
        #expect(MetricNames.exported(prometheusText: scrape) == ["salvo_a_total", "salvo_b_seconds"])
        let dashboard: [String: Any] = ["panels": [["targets": [["expr": "sum(salvo_c)"]]], ["type": "row", "panels": [["targets": [["expr": "salvo_d_count"]]]]]],
            "templating": ["list": [["query": ["query": "label_values(salvo_e, app)"]]]]]
        #expect(MetricNames.referenced(inDashboard: dashboard) == ["salvo_c", "salvo_d", "salvo_e"])
    }
}
