import Foundation
import SalvoMockAPNs
import SalvoTestSupport
import Testing

/// Bounds on everything, and the retry-record rules, through the real binaries: the
/// configuration bounds as `--check-config` reports them, and a retry record's malformed tokens
/// dead-lettered while its valid ones wait for their due time.
@Suite("salvo worker: bounds and retry records", .serialized)
struct WorkerBoundsTests {
    @Test(
        "--check-config refuses the values that crashed the worker or lifted a memory bound, in one line naming the YAML key and the range"
    )
    func checkConfigRefusesAbsurdValues() async throws {
        try await withWorkerStage(scenarioYAML: "name: e2e-bounds\n", partitions: 1) { stage in
            let cases: [(yaml: String, key: String, range: String)] = [
                ("lanes:\n  capacity_per_lane: 9223372036854775807", "lanes.capacity_per_lane", "1…10000000"),
                ("retry:\n  max_held: 9223372036854775807", "retry.max_held", "0…1000000"),
                ("health:\n  probe_requests: 0", "health.probe_requests", "1…1000"),
                ("outcomes:\n  max_attempts: 1000000", "outcomes.max_attempts", "1…1000"),
            ]
            for (index, (yaml, key, range)) in cases.enumerated() {
                let file = try stage.writeWorkerConfiguration(name: "bounds-\(index).yaml", extra: yaml)
                let result = try await CommandRunner.salvo(["worker", "--check-config", file.path])
                #expect(result.status != 0, "\(key) accepted")
                let lines = result.stderr.split(separator: "\n").filter { $0.contains(key) }
                #expect(lines.count == 1, "one line naming \(key): \(result.stderr)")
                #expect(lines.first?.contains(range) == true, "\(key): \(result.stderr)")
            }
            // Streams × connections overflowing the dispatch window crashed the worker.
            let streams = try stage.writeWorkerConfiguration(name: "streams.yaml")
            let text = try String(contentsOf: streams, encoding: .utf8)
                .replacingOccurrences(
                    of: "connections: 2", with: "connections: 2\n      max_streams: 4611686018427387904")
            try text.write(to: streams, atomically: true, encoding: .utf8)
            let result = try await CommandRunner.salvo(["worker", "--check-config", streams.path])
            #expect(result.status != 0)
            #expect(
                result.stderr.contains("apps.shop.pool.max_streams: 4611686018427387904 is out of range 1…1000"),
                "\(result.stderr)")
        }
    }

    @Test(
        "a retry record due in 20 s: its malformed token is dead-lettered at once, its valid token delivered when due")
    func retryRecordNotYetDue() async throws {
        try await withWorkerStage(scenarioYAML: "name: e2e-retry-record\n", partitions: 1) { stage in
            var fixture = CampaignFixture(seed: 17)
            let valid = fixture.token()
            let due = Int64(Date().timeIntervalSince1970 * 1_000) + 20_000
            let record =
                #"{"id":"held","app":"shop","payload":{"aps":{"alert":"later"}},"tokens":["\#(valid)","not-a-token"],"retry":{"attempt":2,"due_at_ms":\#(due)}}"#
            try await stage.enqueue([record], to: stage.retryTopic)
            let worker = try stage.startWorker(try stage.writeWorkerConfiguration(extra: "device_rate_limit: null"))
            let deadLettered = try await waitUntil(timeout: .seconds(15)) { try await stage.deadLetters().count == 1 }
            #expect(deadLettered, "the malformed token's dead letter, long before the record is due")
            #expect(try stage.record().acceptedCount[valid] == nil, "the valid token waits for its due time")
            let reasons = try await stage.deadLetters().map(\.reason)
            #expect(reasons == ["invalid_token"], "\(reasons)")
            let delivered = try await stage.waitForDeliveries(of: [valid], timeout: .seconds(60))
            #expect(delivered.acceptedCount[valid] == 1)
            #expect(Int64(Date().timeIntervalSince1970 * 1_000) >= due - 1_000, "not before its due time")
            worker.signal(SIGTERM)
            #expect(await worker.waitForExit(timeout: .seconds(30)) == 0)
        }
    }
}
