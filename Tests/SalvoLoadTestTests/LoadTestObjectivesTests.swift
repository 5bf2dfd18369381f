import Foundation
import SalvoLoadTest
import Testing

@Suite("Objectives: declared in the scenario, judged against the measurement, shown in every report")
struct LoadTestObjectivesTests {
    static let phases = """
        kind: load
        phases: [{duration_seconds: 3, rate: 10}]

        """

    @Test("objectives are read from the file")
    func parse() throws {
        let scenario = try LoadTestScenario.parse(
            Self.phases + """
                objectives:
                  p99_ms: {priority: 250, campaign: 2000, all: 2000}
                  min_delivered_per_second: 9.5
                  max_duplicate_deliveries: 3
                """)
        #expect(scenario.objectives.p99Milliseconds == ["priority": 250, "campaign": 2000, "all": 2000])
        #expect(scenario.objectives.minimumDeliveredPerSecond == 9.5)
        #expect(scenario.objectives.maximumDuplicateDeliveries == 3)
        #expect(try LoadTestScenario.parse(Self.phases).objectives.isEmpty, "none by default")
    }

    @Test("an unknown key, an unknown lane and out-of-range bounds are refused, all at once")
    func refused() {
        #expect(throws: LoadTestError.self) {
            try LoadTestScenario.parse(Self.phases + "objectives: {p99: {priority: 1}}")
        }
        do {
            _ = try LoadTestScenario.parse(
                Self.phases + """
                    objectives:
                      p99_ms: {express: 10, priority: 0}
                      min_delivered_per_second: -1
                      max_duplicate_deliveries: -2
                    """)
            Issue.record("accepted")
        } catch {
            for text in [
                "objectives.p99_ms.express: not a lane", "objectives.p99_ms.priority must be within",
                "min_delivered_per_second must be > 0",
                "max_duplicate_deliveries must be ≥ 0",
            ] {
                #expect(error.message.contains(text), "\(error.message)")
            }
        }
    }

    @Test("each objective is held against its measurement: latency per lane, delivered rate, duplicates")
    func evaluate() {
        // 29 of 30 delivered over ~2.9 s, 20–24 ms each (LoadTestReportTests.measured).
        let snapshot = LoadTestReportTests.measured().snapshot()
        var objectives = LoadTestScenario.Objectives()
        objectives.p99Milliseconds = ["priority": 24, "all": 10, "campaign": 1_000]
        objectives.minimumDeliveredPerSecond = 9
        objectives.maximumDuplicateDeliveries = 0
        let results = objectives.evaluate(snapshot, plannedSeconds: 3)
        #expect(
            results.map(\.name) == [
                "p99_ms.all", "p99_ms.priority", "p99_ms.campaign", "min_delivered_per_second",
                "max_duplicate_deliveries",
            ])
        #expect(results.map(\.met) == [false, true, false, true, true])
        #expect(results[0].measured == 24 && results[1].measured == 24)
        #expect(results[2].measured == nil, "no campaign traffic: nothing measured, so not met")
        // 29 deliveries over the 3 planned seconds (the last one came before the end).
        #expect(abs((results[3].measured ?? 0) - 29.0 / 3) < 0.01)
        #expect(results[0].summary == "p99_ms.all ≤ 10 ms: measured 24 ms, MISSED")
        #expect(results[3].summary.hasPrefix("min_delivered_per_second ≥ 9 notifications/s: measured 9.7"))

        // A slow worker: the same deliveries stretched over 10 s score a lower rate.
        objectives.minimumDeliveredPerSecond = 5
        #expect(
            objectives.evaluate(snapshot, plannedSeconds: 1).last { $0.name == "min_delivered_per_second" }?.met == true
        )
    }

    @Test("a missed objective FAILs a run that met every expectation; text, JSON and HTML show each objective")
    func reports() throws {
        let measurement = LoadTestReportTests.measured()
        var report = LoadTestReportTests.report(measurement, checksTopics: false)
        report.problems = []
        var objectives = LoadTestScenario.Objectives()
        objectives.p99Milliseconds = ["priority": 1_000]
        report.objectives = objectives.evaluate(report.snapshot, plannedSeconds: 3)
        #expect(report.passed)
        #expect(
            LoadTestTextReport.render(report).contains(
                "  ok   p99_ms.priority ≤ 1000 ms: measured 24 ms, met\n\nRESULT: PASS"))

        objectives.p99Milliseconds = ["priority": 5]
        report.objectives = objectives.evaluate(report.snapshot, plannedSeconds: 3)
        #expect(!report.passed)
        #expect(report.failures == ["objective p99_ms.priority ≤ 5 ms: measured 24 ms, MISSED"])
        let text = LoadTestTextReport.render(report)
        #expect(text.contains("  MISS p99_ms.priority ≤ 5 ms: measured 24 ms, MISSED"))
        #expect(text.contains("RESULT: FAIL\n  - objective p99_ms.priority"))
        let html = LoadTestHTMLReport.render(report)
        #expect(html.contains("<td>p99_ms.priority</td><td>≤ 5 ms</td><td>24 ms</td><td class=\"fail\">missed</td>"))
        let decoded = try JSONDecoder().decode(LoadTestReport.self, from: JSONEncoder().encode(report))
        #expect(decoded.objectives == report.objectives)
    }
}
