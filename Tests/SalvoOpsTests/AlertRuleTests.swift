import Foundation
import SalvoTestSupport
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

    @Test("promtool test rules: every unit test in ops/prometheus/tests passes")
    func promtoolUnitTests() throws {
        let files = RepositoryFiles.files(under: ["ops/prometheus/tests"], extensions: ["yaml"])
        #expect(!files.isEmpty)
        let (status, text) = try Self.promtool(["test", "rules"] + files.map(RepositoryFiles.path))
        #expect(status == 0, "\(text)")
        #expect(text.contains("SUCCESS"), "\(text)")
    }

    @Test("every alert fires in a promtool unit test")
    func everyAlertIsTested() throws {
        let fired = try RepositoryFiles.files(under: ["ops/prometheus/tests"], extensions: ["yaml"]).flatMap { file in
            let document = try #require(try RepositoryFiles.yamlDocuments(file).first as? [String: Any])
            let tests = document["tests"] as? [[String: Any]] ?? []
            return tests.flatMap { $0["alert_rule_test"] as? [[String: Any]] ?? [] }
                .filter { !(($0["exp_alerts"] as? [Any]) ?? []).isEmpty }
                .compactMap { $0["alertname"] as? String }
        }
        let alerts = Set(try Self.alerts().compactMap { $0["alert"] as? String })
        #expect(alerts.count >= 20)
        #expect(alerts.subtracting(fired).isEmpty, "never fired in a test: \(alerts.subtracting(fired).sorted())")
    }

    @Test("every alert's runbook_url points at a section of ops/RUNBOOK.md that exists")
    func runbookURLs() throws {
        let anchors = RunbookAnchors(markdown: try RepositoryFiles.text("ops/RUNBOOK.md"))
        var bases = Set<String>()
        for rule in try Self.alerts() {
            let name = rule["alert"] as? String ?? "?"
            let url = try #require(
                (rule["annotations"] as? [String: String])?["runbook_url"], "\(name) has no runbook_url")
            let parts = url.split(separator: "#", maxSplits: 1).map(String.init)
            #expect(
                parts.count == 2 && parts[0].hasPrefix("https://") && parts[0].hasSuffix("/ops/RUNBOOK.md"),
                "\(name): \(url)")
            guard parts.count == 2 else { continue }
            bases.insert(parts[0])
            #expect(anchors.contains(parts[1]), "\(name): no section of ops/RUNBOOK.md has the anchor #\(parts[1])")
        }
        #expect(bases.count == 1, "one base to replace: \(bases.sorted())")
        let unhealthy = try #require(try Self.alerts().first { $0["alert"] as? String == "SalvoAPNsPoolUnhealthy" })
        #expect((unhealthy["annotations"] as? [String: String])?["runbook_url"]?.hasSuffix("#an-apns-brownout") == true)
        #expect((unhealthy["labels"] as? [String: String])?["severity"] == "warning")
        #expect(
            RunbookAnchors(markdown: "## An APNs brownout\n### SalvoX\n## Rotating a .p8 key, safely\n").anchors
                == ["an-apns-brownout", "salvox", "rotating-a-p8-key-safely"])
    }

    @Test("the worker-down alerts select the scrape job that scrape-config.yaml defines")
    func scrapeJob() throws {
        let config = try #require(
            try RepositoryFiles.yamlDocuments("ops/prometheus/scrape-config.yaml").first as? [String: Any])
        let jobs = (config["scrape_configs"] as? [[String: Any]] ?? []).compactMap { $0["job_name"] as? String }
        #expect(jobs == ["salvo-worker"])
        let expressions = try Self.alerts().filter { ($0["alert"] as? String)?.hasPrefix("SalvoWorker") == true }
            .compactMap { $0["expr"] as? String }
        #expect(expressions.filter { $0.contains("up{job=\"salvo-worker\"}") }.count == 2, "\(expressions)")
        #expect(expressions.contains { $0.contains("absent(") })
    }

    private static func alerts() throws -> [[String: Any]] {
        let rules = try #require(
            try RepositoryFiles.yamlDocuments("ops/prometheus/salvo-rules.yaml").first as? [String: Any])
        return (rules["groups"] as? [[String: Any]] ?? []).flatMap { $0["rules"] as? [[String: Any]] ?? [] }
    }

    private static func promtool(_ arguments: [String]) throws -> (Int32, String) {
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/promtool")
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    @Test("every metric the alerts use is in docs/metrics.md")
    func alertMetricsAreDocumented() throws {
        let documented = MetricNames.documented(markdown: try RepositoryFiles.text("docs/metrics.md"))
        let rules = try #require(
            try RepositoryFiles.yamlDocuments("ops/prometheus/salvo-rules.yaml").first as? [String: Any])
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
        let expression =
            #"histogram_quantile(0.99, sum by (le) (rate(salvo_end_to_end_latency_seconds_bucket{lane="salvo_x"}[5m]))) / salvo_jobs_total and on(pod) salvo_worker_ready:ratio"#
        #expect(
            MetricNames.referenced(inPromQL: expression) == [
                "salvo_end_to_end_latency_seconds", "salvo_jobs_total", "salvo_worker_ready:ratio",
            ])
        #expect(
            MetricNames.documented(markdown: "| name |\n|---|\n| `salvo_a_total` | counter |\n| `other` |\n") == [
                "salvo_a_total"
            ])
        let scrape =
            "# HELP salvo_a_total x\n# TYPE salvo_a_total counter\nsalvo_a_total 1\n# TYPE salvo_b_seconds histogram\n"
        #expect(MetricNames.exported(prometheusText: scrape) == ["salvo_a_total", "salvo_b_seconds"])
        let dashboard: [String: Any] = [
            "panels": [
                ["targets": [["expr": "sum(salvo_c)"]]],
                ["type": "row", "panels": [["targets": [["expr": "salvo_d_count"]]]]],
            ],
            "templating": ["list": [["query": ["query": "label_values(salvo_e, app)"]]]],
        ]
        #expect(MetricNames.referenced(inDashboard: dashboard) == ["salvo_c", "salvo_d", "salvo_e"])
    }
}
