import Foundation
import SalvoKafka
import SalvoMockAPNs
import SalvoTestSupport
import Testing

/// The duplicate bounds of docs/jobs.md on librdkafka's mock cluster with the
/// `cooperative-sticky` assignor (recommended on Apache Kafka; Tansu cannot run it), and a final
/// commit that fails: the mock cluster, in this process, answers the workers' OffsetCommit
/// requests with the errors a rebalance gives.
@Suite("salvo workers on the mock cluster: duplicates with cooperative-sticky, a failed final commit", .serialized)
struct FleetOnMockClusterTests {
    /// The mock cluster answers a ListOffsets by time with the end of the partition, so the
    /// default start (records up to 1 h old) would skip what the test enqueued: start at the
    /// earliest record, as the groups here are new.
    static let cooperative = ["assignment_strategy: cooperative-sticky", "start_from: earliest"]

    @Test(
        "SIGKILL at 10, 50 and 80 % of a 12,000-token job at 6,000/s, defaults, cooperative-sticky: 0 lost, duplicates at most kafka.max_unconfirmed_sends (3,200)",
        arguments: [0.1, 0.5, 0.8])
    func killMidJob(fraction: Double) async throws {
        try await withWorkerStage(scenarioYAML: "name: mock-cluster-kill\n", partitions: 1, embedded: true) { stage in
            let kill = try await DuplicateShapes.killDuringJob(
                at: fraction, on: stage, kafka: Self.cooperative, seed: 282 + UInt64(fraction * 10))
            print(
                "SIGKILL at \(Int(fraction * 100)) % (mock cluster, cooperative-sticky): \(kill.acceptedAtKill) accepted at the kill, \(kill.duplicates) duplicates"
            )
            #expect(kill.duplicates <= DuplicateShapes.defaultUnconfirmedSends, "\(kill.duplicates) duplicates")
        }
    }

    @Test(
        "rolling restart of 3 workers at the defaults with cooperative-sticky, 300/s per worker: 0 lost, duplicates at most 1 %, every SIGTERM exits 0"
    )
    func rollingRestart() async throws {
        try await withWorkerStage(scenarioYAML: "name: mock-cluster-rolling\n", partitions: 6, embedded: true) {
            stage in
            try await DuplicateShapes.expectRollingRestart(
                on: stage, kafka: Self.cooperative, seed: 283, label: "mock cluster, cooperative-sticky")
        }
    }

    @Test(
        "a drain whose final commit fails (REBALANCE_IN_PROGRESS, injected) exits 69 naming what the next owner re-sends; the next owner sends nothing twice"
    )
    func failedFinalCommit() async throws {
        try await withWorkerStage(scenarioYAML: "name: mock-cluster-commit\n", partitions: 1, embedded: true) { stage in
            let embedded = try #require(stage.cluster.embedded)
            var fixture = CampaignFixture(seed: 284)
            fixture.addCampaign(id: "commit", jobs: 4, tokensPerJob: 3_000, app: WorkerStage.app, fate: MockTokenFate())
            try await stage.enqueue(fixture.campaignLines, to: stage.jobsTopic)
            let file = try stage.writeWorkerConfiguration(
                extra: "device_rate_limit: null", kafka: Self.cooperative, ratePerSecond: 1_000)
            let first = try stage.startWorker(file, name: "first")
            #expect(try await waitUntil(timeout: .seconds(90)) { try await stage.acceptedByMock() >= 4_000 })
            await embedded.failRequests(.offsetCommit, with: .rebalanceInProgress, count: 1_000_000)
            first.signal(SIGTERM)
            let status = await first.waitForExit(timeout: .seconds(40))
            let output = first.stdout + first.stderr
            #expect(status == 69, "exit status \(String(describing: status))")
            #expect(
                output.contains("final offset commit failed"),
                "the exit names the failed commit: \(output.suffix(2_000))")
            #expect(output.contains("sends none of them"), "and what the next owner sends again")
            await embedded.stopFailing(.offsetCommit)

            let second = try stage.startWorker(file, name: "second")
            let record = try await stage.waitForDeliveries(of: fixture.expected.delivered, timeout: .seconds(120))
            let missing = fixture.expected.delivered.filter { record.acceptedCount[$0] == nil }
            #expect(missing.count == 0, "\(missing.count) lost")
            let duplicates = record.acceptedCount.values.filter { $0 > 1 }.count
            print("failed final commit: \(duplicates) duplicates of \(record.distinctTokens)")
            #expect(duplicates == 0, "the next owner skipped what the final checkpoint recorded complete")
            second.signal(SIGTERM)
            #expect(await second.waitForExit(timeout: .seconds(40)) == 0)
        }
    }
}
