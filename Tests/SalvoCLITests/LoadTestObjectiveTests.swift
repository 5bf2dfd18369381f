import Foundation
import SalvoTestSupport
import Testing

/// A load scenario's objectives gate the run. The `salvo loadtest` binary drives
/// the `salvo worker` binary and the `salvo mock-apns` binary on the test broker; one scenario's
/// objectives are loose enough for any machine, the other's cannot be met by any.
@Suite("salvo loadtest objectives", .serialized)
struct LoadTestObjectiveTests {
    @Test(
        "objectives met: exit 0, PASS, each shown as met; an objective that cannot be met: exit 2, FAIL, shown as missed in text, JSON and HTML"
    )
    func objectivesGateTheRun() async throws {
        try await withWorkerStage(scenarioYAML: "name: healthy\n", partitions: 2) { stage in
            let worker = try stage.startWorker(try stage.writeWorkerConfiguration())
            // Deliveries over the admin listener (GET /deliveries), as from another container.
            let met = try await runLoad(
                stage, name: "met",
                objectives: """
                    objectives:
                      p99_ms: {all: 60000, priority: 60000, campaign: 60000}
                      min_delivered_per_second: 1
                      max_duplicate_deliveries: 0
                    """, observe: ["--mock-admin", "http://127.0.0.1:\(stage.mockAdminPort)"])
            #expect(
                met.status == 0,
                "\(met.stdout.suffix(3_000))\n\(met.stderr.suffix(2_000))\nworker: \(worker.stderr.suffix(2_000))")
            #expect(met.stdout.contains("RESULT: PASS"))
            for name in [
                "p99_ms.all", "p99_ms.priority", "p99_ms.campaign", "min_delivered_per_second",
                "max_duplicate_deliveries",
            ] {
                #expect(met.stdout.contains("ok   \(name)"), "\(name) not shown as met:\n\(met.stdout)")
            }

            // The same traffic against a 1 ms p99 and a million notifications a second; record file this time.
            let missed = try await runLoad(
                stage, name: "missed",
                objectives: """
                    objectives:
                      p99_ms: {priority: 1}
                      min_delivered_per_second: 1000000
                    """,
                observe: [
                    "--mock-record", stage.recordURL.path, "--mock-admin", "http://127.0.0.1:\(stage.mockAdminPort)",
                ])
            #expect(missed.status == 2, "\(missed.stdout.suffix(3_000))\n\(missed.stderr.suffix(2_000))")
            #expect(missed.stdout.contains("RESULT: FAIL"))
            #expect(missed.stdout.contains("MISS p99_ms.priority ≤ 1 ms: measured"))
            #expect(missed.stdout.contains("MISS min_delivered_per_second ≥ 1000000 notifications/s: measured"))
            #expect(
                !missed.stdout.contains("not delivered"),
                "everything was delivered; only the objectives fail:\n\(missed.stdout)")

            let json =
                try JSONSerialization.jsonObject(
                    with: Data(contentsOf: missed.reportDirectory.appendingPathComponent("report.json")))
                as? [String: Any]
            let objectives = try #require(json?["objectives"] as? [[String: Any]])
            #expect(objectives.map { $0["name"] as? String } == ["p99_ms.priority", "min_delivered_per_second"])
            #expect(objectives.allSatisfy { $0["met"] as? Bool == false && $0["measured"] is NSNumber })
            let html = try String(
                contentsOf: missed.reportDirectory.appendingPathComponent("report.html"), encoding: .utf8)
            #expect(
                html.contains("<h2>Objectives</h2>") && html.contains("<td>p99_ms.priority</td>")
                    && html.contains(">missed</td>"))
        }
    }

    struct LoadRun {
        var status: Int32
        var stdout: String
        var stderr: String
        var reportDirectory: URL
    }

    /// A 4-second load (20 per-user/s and a 200-token campaign every 2 s) on the stage's topics.
    private func runLoad(
        _ stage: WorkerStage, name: String, objectives: String, observe: [String]
    ) async throws -> LoadRun {
        let scenario = try stage.loadScenario(
            name: "objectives-\(name)",
            body: """
                phases:
                  - duration_seconds: 4
                    rate: 20
                    campaign: {tokens_per_job: 200, every_seconds: 2}
                \(objectives)
                """)
        let (result, reports) = try await stage.runLoadTest(scenario, name: "objectives-\(name)", observe: observe)
        return LoadRun(
            status: result.status, stdout: result.stdoutText, stderr: result.stderr, reportDirectory: reports)
    }
}
