import Foundation
import SalvoMockAPNs
import SalvoTestSupport
import Testing

/// The alerts (ops/prometheus) and the dashboard (ops/grafana) only help if the names they query
/// exist: a running `salvo worker` must export every one of them.
@Suite("salvo worker metrics")
struct WorkerMetricsTests {
    @Test("every metric the alert rules and the dashboard use is exported by a running worker's /metrics")
    func artifactsUseExportedNames() async throws {
        let used = try MetricNames.usedByArtifacts()
        #expect(used.count >= 10, "the artifacts reference suspiciously few metrics: \(used.sorted())")
        try await withWorkerStage(scenarioYAML: WorkerAcceptanceTests.deadTokenScenario) { stage in
            var fixture = CampaignFixture(seed: 6)
            fixture.addPerUser(id: "metrics", count: 300, app: WorkerStage.app, fate: WorkerAcceptanceTests.deadTokens)
            try await stage.enqueue(fixture.perUserLines, to: stage.priorityTopic)
            let worker = try stage.startWorker(try stage.writeWorkerConfiguration())
            let record = try await stage.waitForDeliveries(of: fixture.expected.delivered, timeout: .seconds(120))
            #expect(fixture.expected.delivered.allSatisfy { record.acceptedCount[$0] != nil })
            // Consumer lag is sampled every few seconds once partitions are assigned.
            var scrape = ""
            var missing = used
            try await waitUntil(timeout: .seconds(30)) {
                scrape = try await stage.metrics(of: worker)
                missing = used.subtracting(MetricNames.exported(prometheusText: scrape))
                return missing.isEmpty
            }
            #expect(missing.count == 0, "used by ops/ but not exported: \(missing.sorted())")
            #expect(
                counterTotal(scrape, "salvo_notifications_total", containing: "outcome=\"delivered\"")
                    >= Double(fixture.expected.delivered.count))
        }
    }
}
