import Foundation
import SalvoMockAPNs
import SalvoTestSupport
import Testing

/// Progress inside a job: a worker killed in the middle of a large job leaves a
/// checkpoint of the job's done prefix in the progress topic, so the next worker resumes the job
/// there instead of sending it whole again.
@Suite("salvo worker: job checkpoints", .serialized)
struct WorkerCheckpointTests {
    // 50,000 tokens come as 4 jobs × 12,500, not 2 × 25,000: a 25,000-token job is 1.7 MB, past
    // Kafka's default message size (and `limits.max_job_bytes`).
    @Test(
        "4 jobs × 12,500 tokens at 6,000/s, 2 connections × 1,000 streams, SIGKILL at about half the first job, restart: 0 lost, at most 3,500 duplicates, none thrice"
    )
    func killedMidJobResumesAtTheCheckpoint() async throws {
        try await withWorkerStage(scenarioYAML: "name: e2e-checkpoint\n", partitions: 1) { stage in
            var fixture = CampaignFixture(seed: 182)
            fixture.addCampaign(id: "half", jobs: 4, tokensPerJob: 12_500, app: WorkerStage.app, fate: MockTokenFate())
            try await stage.enqueue(fixture.campaignLines, to: stage.jobsTopic)
            let file = try stage.writeWorkerConfiguration(extra: "device_rate_limit: null")
            let text = try String(contentsOf: file, encoding: .utf8)
                .replacingOccurrences(
                    of: "    pool:\n", with: "    rate_limit: {per_second: 6000, burst: 600}\n    pool:\n"
                )
                .replacingOccurrences(of: "connections: 2", with: "connections: 2\n      max_streams: 1000")
            try text.write(to: file, atomically: true, encoding: .utf8)

            let first = try stage.startWorker(file, name: "first")
            let halfway = try await waitUntil(timeout: .seconds(120)) { try stage.record().distinctTokens >= 6_250 }
            #expect(halfway, "the first worker sent half the first job")
            first.signal(SIGKILL)
            _ = await first.waitForExit(timeout: .seconds(10))
            try await Task.sleep(for: .milliseconds(1_500))  // the mock writes its record every second
            let sentByFirst = try stage.record().distinctTokens

            let second = try stage.startWorker(file, name: "second")
            let record = try await stage.waitForDeliveries(of: fixture.expected.delivered, timeout: .seconds(180))
            let missing = fixture.expected.delivered.filter { record.acceptedCount[$0] == nil }
            #expect(missing.isEmpty, "\(missing.count) lost")
            let duplicates = record.acceptedCount.values.filter { $0 > 1 }.count
            print(
                "SIGKILL mid-job: first worker sent \(sentByFirst), \(duplicates) duplicates of \(record.distinctTokens) after the restart"
            )
            #expect(
                duplicates <= 3_500, "\(duplicates) duplicates: more than the in-flight window plus 0.25 s of sending")
            #expect(record.acceptedCount.values.allSatisfy { $0 <= 2 }, "none thrice")
            second.signal(SIGTERM)
            #expect(await second.waitForExit(timeout: .seconds(40)) == 0)
        }
    }
}
