import Foundation
import SalvoTestSupport
import Testing

/// A load scenario's `control:` phase cancels a campaign under load. The
/// `salvo loadtest` binary drives a `salvo worker` process and the `salvo mock-apns` binary on the
/// test broker; the report's campaign-control section must show the cancel obeyed (nothing of the
/// campaign from 1 s after the command) and the workers' `sent + cancelled` equal to its total.
@Suite("salvo loadtest: a cancel phase", .serialized)
struct LoadTestCancelTests {
    @Test(
        "cancel at 30 %: PASS, 0 delivered after +1 s, sent + cancelled = total in text, JSON and HTML; the other campaign all delivered"
    )
    func cancelPhase() async throws {
        try await withWorkerStage(scenarioYAML: "name: healthy\n", partitions: 2) { stage in
            // 400/s, so the 6,000-token campaign takes ~15 s and the cancel lands mid-way.
            let file = try stage.writeWorkerConfiguration(logLevel: "notice", ratePerSecond: 400)
            let worker = try stage.startWorker(file)
            let scenario = try stage.loadScenario(
                name: "cancel-phase", drainSeconds: 90,
                extraTopics: ["control: \(stage.prefix).control", "campaigns: \(stage.prefix).campaigns"],
                body: """
                    phases:
                      - duration_seconds: 6
                        rate: 10
                        campaigns:
                          - {name: doomed, tokens_per_job: 1000, every_seconds: 1}
                          - {name: kept, tokens_per_job: 100, every_seconds: 2}
                    control:
                      - {at: 30%, action: cancel, campaign: doomed}
                    objectives:
                      max_sent_after_control: 0
                    """)
            let (result, reports) = try await stage.runLoadTest(scenario, name: "cancel-phase", timeout: .seconds(180))
            let stdout = result.stdoutText
            print(stdout)
            #expect(
                result.status == 0,
                "\(stdout.suffix(3_000))\n\(result.stderr.suffix(2_000))\nworker: \(worker.stderr.suffix(2_000))")
            #expect(stdout.contains("RESULT: PASS"))
            #expect(stdout.contains("campaign control"))
            #expect(stdout.contains("cancel doomed ("), "\(stdout)")
            #expect(stdout.contains("after +1 s: 0 delivered (objective 0)"), "\(stdout)")
            #expect(stdout.contains("ok   max_sent_after_control ≤ 0 notifications"), "\(stdout)")

            let json =
                try JSONSerialization.jsonObject(with: Data(contentsOf: reports.appendingPathComponent("report.json")))
                as? [String: Any]
            let control = try #require((json?["control"] as? [[String: Any]])?.first)
            let total = try #require(control["notifications"] as? Int)
            #expect(total == 6_000)
            #expect(control["deliveredAfterGrace"] as? Int == 0)
            let before = try #require(control["deliveredBefore"] as? Int)
            let after = try #require(control["deliveredAfter"] as? Int)
            #expect(before >= 1_800, "the cancel waited for 30 % of the campaign")
            #expect(before + after < total, "the cancel stopped part of the campaign")
            let progress = try #require(control["progress"] as? [String: Any], "the workers' progress was read")
            let sent = try #require(progress["sent"] as? Int)
            let cancelled = try #require(progress["cancelled"] as? Int)
            #expect(sent + cancelled == total, "sent + cancelled = total")
            #expect(sent == before + after, "the workers sent what the mock recorded")
            #expect(
                stdout.contains("workers: sent \(sent) + cancelled \(cancelled) = \(total) of \(total)"), "\(stdout)")
            let html = try String(contentsOf: reports.appendingPathComponent("report.html"), encoding: .utf8)
            #expect(html.contains("<h2>Campaign control</h2>") && html.contains("\(sent) + \(cancelled) / \(total)"))
        }
    }
}
