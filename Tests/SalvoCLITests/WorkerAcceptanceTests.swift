import Foundation
import SalvoMockAPNs
import SalvoTestSupport
import Testing

/// The `salvo worker` binary against the real test broker and the
/// `salvo mock-apns` binary over TLS with JWT verification. Nothing here is mocked in-process.
///
/// Sizes: the campaign is 100 jobs of 1,000 tokens (100,000 notifications); one 100,000-token job
/// is covered by the decoder's tests. The app is limited to 5,000/s, so the campaign lasts about
/// 20 s and the per-user trickle meets it in flight, as in production, where an unlimited release
/// worker would finish it in about 2 s, before most per-user pushes arrive.
@Suite("salvo worker end to end", .serialized)
struct WorkerAcceptanceTests {
    static let deadTokens = MockTokenFate(unregistered: 0.01, badDeviceToken: 0.005)
    static let deadTokenScenario = """
        name: e2e-dead-tokens
        tokens:
          unregistered: 0.01
          bad_device_token: 0.005
        """

    @Test(
        "100,000-token campaign + 5,000 per-user jobs: every valid token accepted once, exactly the predicted feedback, all offsets committed, per-user p99 printed"
    )
    func campaignAndPerUser() async throws {
        try await withWorkerStage(scenarioYAML: Self.deadTokenScenario) { stage in
            var fixture = CampaignFixture(seed: 1)
            fixture.addCampaign(
                id: "spring", jobs: 100, tokensPerJob: 1_000, app: WorkerStage.app, fate: Self.deadTokens)
            let campaignValid = fixture.expected.delivered
            fixture.addPerUser(id: "dm", count: 5_000, app: WorkerStage.app, fate: Self.deadTokens)
            let perUserValid = fixture.expected.delivered.subtracting(campaignValid)
            try await stage.enqueue(fixture.campaignLines, to: stage.jobsTopic)
            let worker = try stage.startWorker(try stage.writeWorkerConfiguration(ratePerSecond: 5_000))
            // Per-user pushes arrive while the campaign is in flight.
            _ = try await waitUntil(timeout: .seconds(120)) { try stage.record().distinctTokens >= 10_000 }
            let campaignStillRunning = try stage.record().distinctTokens < campaignValid.count
            // A steady trickle (20 waves of 250, one a second), as per-user traffic arrives, not
            // one burst that would measure its own queueing.
            for wave in stride(from: 0, to: fixture.perUserLines.count, by: 250) {
                let started = ContinuousClock.now
                try await stage.enqueue(
                    Array(fixture.perUserLines[wave..<min(wave + 250, fixture.perUserLines.count)]),
                    to: stage.priorityTopic)
                try await Task.sleep(until: started + .seconds(1))
            }

            let record = try await stage.waitForDeliveries(of: fixture.expected.delivered, timeout: .seconds(420))
            let missing = fixture.expected.delivered.filter { record.acceptedCount[$0] == nil }
            #expect(
                missing.count == 0,
                "\(missing.count) valid tokens never reached the mock; worker stderr: \(worker.stderr.suffix(3_000))")
            let unexpected = record.acceptedCount.keys.filter { !fixture.expected.delivered.contains($0) }.count
            #expect(unexpected == 0, "the mock accepted \(unexpected) tokens it should have refused")
            #expect(record.duplicates == 0, "\(record.duplicates) duplicate deliveries without any failure injected")

            try await stage.expectFeedback(equals: fixture.expected.feedback)

            worker.signal(SIGTERM)
            let status = await worker.waitForExit(timeout: .seconds(30))
            #expect(status == 0, "worker exit status \(String(describing: status)): \(worker.stderr.suffix(3_000))")
            #expect(try await stage.uncommittedPartitions(of: stage.jobsTopic, group: stage.groupID) == [])
            #expect(
                try await stage.uncommittedPartitions(of: stage.priorityTopic, group: "\(stage.groupID).priority") == []
            )

            let latencies = try await perUserLatencies(stage, record: record, tokens: perUserValid)
            let p50 = percentile(latencies, 0.50)
            let p99 = percentile(latencies, 0.99)
            print(
                "per-user latency during the campaign (enqueue → mock receipt, \(latencies.count) pushes): p50 \(p50) ms, p99 \(p99) ms; campaign still running when they were enqueued: \(campaignStillRunning)"
            )
            if campaignStillRunning {
                // Starvation would put per-user pushes behind the rest of the campaign.
                let campaignSpan = campaignSpanMilliseconds(record, tokens: campaignValid)
                #expect(
                    p99 < max(campaignSpan / 2, 1_000),
                    "per-user p99 \(p99) ms against a campaign of \(campaignSpan) ms")
            }
        }
    }

    private func perUserLatencies(_ stage: WorkerStage, record: MockRecord, tokens: Set<String>) async throws -> [Int64]
    {
        // Kafka's timestamp of each per-user job, matched to the mock's receipt of its token.
        let result = try await stage.cluster.read(stage.priorityTopic, format: "%T\t%s\n")
        var latencies: [Int64] = []
        for line in result.stdoutText.split(separator: "\n") {
            let parts = line.split(separator: "\t", maxSplits: 1)
            guard parts.count == 2, let produced = Int64(parts[0]),
                let match = parts[1].firstMatch(of: /"token":"([0-9a-f]+)"/), tokens.contains(String(match.1)),
                let received = record.firstReceivedAt[String(match.1)]
            else { continue }
            latencies.append(received - produced)
        }
        return latencies.sorted()
    }

    private func campaignSpanMilliseconds(_ record: MockRecord, tokens: Set<String>) -> Int64 {
        let times = tokens.compactMap { record.firstReceivedAt[$0] }
        guard let first = times.min(), let last = times.max() else { return 0 }
        return last - first
    }
}
