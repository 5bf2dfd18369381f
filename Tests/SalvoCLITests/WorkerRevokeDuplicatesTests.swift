import Foundation
import SalvoMockAPNs
import SalvoTestSupport
import Testing

/// A clean revoke: when a second worker joins mid-run, the first stops the revoked
/// partitions' queued work at once, waits for its in-flight requests to be answered, commits,
/// and only then gives the partitions up; so the second re-sends at most what was in flight.
@Suite("salvo worker: duplicates of a rebalance", .serialized)
struct WorkerRevokeDuplicatesTests {
    @Test(
        "two workers, a mock answering after 1 s, 5-stream pools, the second started mid-run: 0 lost, duplicates at most the in-flight window (10), none thrice"
    )
    func secondWorkerJoiningMidRun() async throws {
        let scenario = "name: e2e-revoke\nlatency: {distribution: fixed, fixed_ms: 1000}\n"
        try await withWorkerStage(scenarioYAML: scenario, partitions: 4) { stage in
            var fixture = CampaignFixture(seed: 181)
            fixture.addCampaign(id: "revoke", jobs: 12, tokensPerJob: 10, app: WorkerStage.app, fate: MockTokenFate())
            try await stage.enqueue(fixture.campaignLines, to: stage.jobsTopic)
            let file = try stage.writeWorkerConfiguration(extra: "device_rate_limit: null")
            let text = try String(contentsOf: file, encoding: .utf8)
                .replacingOccurrences(of: "connections: 2", with: "connections: 1\n      max_streams: 5")
            try text.write(to: file, atomically: true, encoding: .utf8)

            let first = try stage.startWorker(file, name: "first")
            let begun = try await waitUntil(timeout: .seconds(60)) { try stage.record().distinctTokens >= 15 }
            #expect(begun, "the first worker sent 15 notifications")
            let second = try stage.startWorker(file, name: "second")
            let record = try await stage.waitForDeliveries(of: fixture.expected.delivered, timeout: .seconds(120))
            let missing = fixture.expected.delivered.filter { record.acceptedCount[$0] == nil }
            #expect(missing.isEmpty, "\(missing.count) lost")
            let duplicates = record.acceptedCount.values.filter { $0 > 1 }.count
            let gaveUpEarly = [first, second].flatMap {
                $0.stderr.split(separator: "\n").filter { $0.contains("revoke went ahead") }
            }
            #expect(gaveUpEarly.isEmpty, "a revoke gave up waiting: \(gaveUpEarly)")
            print("rebalance with a second worker: \(duplicates) duplicates of \(record.distinctTokens)")
            #expect(duplicates <= 10, "\(duplicates) duplicates: more than the in-flight window of two workers (2 × 5)")
            #expect(record.acceptedCount.values.allSatisfy { $0 <= 2 }, "none thrice")
            for worker in [first, second] { worker.signal(SIGTERM) }
            for worker in [first, second] { #expect(await worker.waitForExit(timeout: .seconds(40)) == 0) }
        }
    }
}
