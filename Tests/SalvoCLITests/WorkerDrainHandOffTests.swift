import Foundation
import SalvoMockAPNs
import SalvoTestSupport
import Testing

/// A drain commits what it handed off: a SIGTERM in the middle of a rate-limited job
/// hands its unsent notifications to the retry topic and commits the job, so the next worker
/// sends only those, not the whole job again.
@Suite("salvo worker: a drain hands off a begun job", .serialized)
struct WorkerDrainHandOffTests {
    @Test(
        "one 6,000-token job at 300/s, SIGTERM mid-job, restart: every token delivered, none more than twice, the handed-off ones once"
    )
    func drainHandsOffTheRestOfTheJob() async throws {
        try await withWorkerStage(scenarioYAML: "name: e2e-drain-hand-off\n", partitions: 1) { stage in
            var fixture = CampaignFixture(seed: 18)
            fixture.addCampaign(
                id: "rate-limited", jobs: 1, tokensPerJob: 6_000, app: WorkerStage.app, fate: MockTokenFate())
            try await stage.enqueue(fixture.campaignLines, to: stage.jobsTopic)
            let file = try stage.writeWorkerConfiguration(extra: "device_rate_limit: null")
            let text = try String(contentsOf: file, encoding: .utf8)
                .replacingOccurrences(of: "    pool:\n", with: "    rate_limit: {per_second: 300}\n    pool:\n")
            try text.write(to: file, atomically: true, encoding: .utf8)

            let first = try stage.startWorker(file, name: "first")
            let started = try await waitUntil(timeout: .seconds(60)) { try stage.record().distinctTokens >= 1_500 }
            #expect(started, "the first worker sent 1,500 notifications")
            first.signal(SIGTERM)
            #expect(await first.waitForExit(timeout: .seconds(40)) == 0)
            let sentByFirst = try stage.record().acceptedCount

            let second = try stage.startWorker(file, name: "second")
            let record = try await stage.waitForDeliveries(of: fixture.expected.delivered, timeout: .seconds(90))
            #expect(fixture.expected.delivered.allSatisfy { record.acceptedCount[$0] != nil }, "nothing lost")
            let twice = record.acceptedCount.filter { $0.value > 1 }
            #expect(record.acceptedCount.values.allSatisfy { $0 <= 2 }, "none more than twice")
            // The first worker's drain committed the job: the second sends only what was handed off.
            let handedOffSentTwice = twice.keys.filter { sentByFirst[$0] == nil }
            #expect(handedOffSentTwice.isEmpty, "\(handedOffSentTwice.count) handed-off notifications sent twice")
            print(
                "drain hand-off: first worker sent \(sentByFirst.count), duplicates \(twice.count) of \(record.distinctTokens)"
            )
            #expect(twice.count <= 100, "duplicates bounded by what was in flight: \(twice.count)")
            second.signal(SIGTERM)
            #expect(await second.waitForExit(timeout: .seconds(40)) == 0)
        }
    }
}
