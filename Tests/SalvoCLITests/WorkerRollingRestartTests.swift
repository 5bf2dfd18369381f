import Foundation
import SalvoMockAPNs
import SalvoTestSupport
import Testing

/// Fleet events on the test broker: a rolling restart of three workers at the worker's defaults,
/// and a retry held while later jobs complete, measured by the mock's record of every accepted
/// notification (deterministic apns-ids make a re-send visible as a second acceptance of the same
/// token).
@Suite("salvo worker: duplicates of a rolling restart and a held retry", .serialized)
struct WorkerRollingRestartTests {
    // Each replacement must hold partitions in both consumer groups before the next SIGTERM, as
    // a Kubernetes rolling update waits for the new pod's readiness. Without that wait the test
    // stalled on the test broker: Tansu keeps a member that leaves during a join round as the
    // next generation's leader, so the group waits in SyncGroup for a leader that is gone (seen
    // with librdkafka's `cgrp` debug log: JoinGroup answers naming the departed member as leader
    // for minutes). Apache Kafka removes a leaving member from the round at once.
    @Test(
        "rolling restart of 3 workers at the defaults (2 × 1,000 streams, range), 300/s per worker, a 60,000-token campaign and 3,000 per-user jobs: 0 lost, duplicates at most 1 %, every SIGTERM exits 0"
    )
    func rollingRestart() async throws {
        try await withWorkerStage(scenarioYAML: "name: e2e-rolling\n", partitions: 6) { stage in
            try await DuplicateShapes.expectRollingRestart(on: stage, kafka: [], seed: 183, label: "Tansu, range")
        }
    }

    @Test(
        "a throttled token's retry does not pin its partition: 20 jobs × 500 tokens complete behind it, SIGKILL 5 s later, restart: at most 500 duplicates of them"
    )
    func heldRetryDoesNotPinTheCommit() async throws {
        // One notification per device token per 8 s: the job below sends its token twice, and the
        // second send is answered 429 and retried 10 s later (`retry.too_many_requests`), past
        // the 5 s a retry may be held in memory, so it goes to the retry topic at once.
        let scenario = "name: e2e-held-retry\nrate_limit: {requests: 1, per_seconds: 8}\n"
        try await withWorkerStage(scenarioYAML: scenario, partitions: 1) { stage in
            let throttled = String(repeating: "ab", count: 32)
            let throttledJob =
                #"{"id":"throttled","app":"\#(WorkerStage.app)","tokens":["\#(throttled)","\#(throttled)"],"payload":{"aps":{"alert":"twice"}}}"#
            var fixture = CampaignFixture(seed: 184)
            fixture.addCampaign(id: "behind", jobs: 20, tokensPerJob: 500, app: WorkerStage.app, fate: MockTokenFate())
            try await stage.enqueue([throttledJob] + fixture.campaignLines, to: stage.jobsTopic)
            let file = try stage.writeWorkerConfiguration(extra: "device_rate_limit: null")

            let first = try stage.startWorker(file, name: "first")
            let behind = fixture.expected.delivered
            let completed = try await waitUntil(timeout: .seconds(90)) {
                let record = try stage.record()
                return behind.allSatisfy { record.acceptedCount[$0] != nil }
            }
            #expect(completed, "the 20 jobs behind the throttled one were accepted")
            try await Task.sleep(for: .seconds(5))
            first.signal(SIGKILL)
            _ = await first.waitForExit(timeout: .seconds(10))

            let second = try stage.startWorker(file, name: "second")
            let record = try await stage.waitForDeliveries(of: behind.union([throttled]), timeout: .seconds(120))
            #expect(record.acceptedCount[throttled] != nil, "the throttled token is delivered after its retry")
            let duplicates = behind.filter { (record.acceptedCount[$0] ?? 0) > 1 }.count
            print("held retry, SIGKILL 5 s after 20 jobs completed: \(duplicates) duplicates of \(behind.count)")
            #expect(duplicates <= 500, "\(duplicates) of the completed jobs sent again")
            #expect(record.acceptedCount.values.allSatisfy { $0 <= 2 }, "none thrice")
            second.signal(SIGTERM)
            #expect(await second.waitForExit(timeout: .seconds(40)) == 0)
        }
    }
}
