import Foundation
import SalvoTestSupport
import Testing

/// A load scenario's broadcast mix end to end — channels created on the mock's
/// channel-management listener with `salvo channels create`, `salvo loadtest` replacing a share of
/// the per-user jobs with broadcast jobs to them, the `salvo worker` binary sending them, and the
/// report counting each broadcast the mock recorded (deliveries paged from its admin listener).
@Suite("salvo loadtest: a broadcast mix", .serialized)
struct LoadTestBroadcastTests {
    @Test("mix.broadcasts: every broadcast job reaches the mock once, counted on the broadcast lane; PASS")
    func broadcastMix() async throws {
        try await withWorkerStage(
            scenarioYAML: "name: healthy\n", partitions: 2, mockArguments: ["--broadcast-listen", "127.0.0.1:0"]
        ) { stage in
            let port = try ChannelsCommandTests.port(
                try await stage.mock.waitForOutput(containing: "channel management on"))
            let config = try stage.writeWorkerConfiguration()
            var channels: [String] = []
            for _ in 0..<2 {
                channels.append(
                    try #require(
                        try await WorkerBroadcastTests.channels("create", [], stage: stage, config: config, port: port)[
                            "apns-channel-id"]))
            }
            let worker = try stage.startWorker(config)
            let scenario = try stage.loadScenario(
                name: "broadcast-mix",
                body: """
                    phases:
                      - duration_seconds: 4
                        rate: 20
                        campaign: {tokens_per_job: 100, every_seconds: 2}
                    mix:
                      broadcasts: 0.25
                      broadcast_channels: [\(channels.map { "\"\($0)\"" }.joined(separator: ", "))]
                    objectives:
                      p99_ms: {broadcast: 60000}
                    """)
            let (result, _) = try await stage.runLoadTest(scenario, name: "broadcast-mix")
            let stdout = result.stdoutText
            print(stdout)
            #expect(
                result.status == 0,
                "\(stdout.suffix(3_000))\n\(result.stderr.suffix(2_000))\nworker: \(worker.stderr.suffix(2_000))")
            #expect(stdout.contains("RESULT: PASS"))
            // 80 per-user arrivals, a quarter of them broadcasts.
            #expect(stdout.contains("delivered broadcast 20 / 20 expected"), "\(stdout)")
            #expect(stdout.contains("delivered priority  60 / 60 expected"), "\(stdout)")
            #expect(stdout.contains("ok   p99_ms.broadcast"), "\(stdout)")
            #expect(stdout.contains(", broadcasts accepted 20"), "the mock's /stats agree: \(stdout)")
            let lines = try WorkerBroadcastTests.recordLines(stage).filter { $0["channel_id"] != nil }
            #expect(lines.count == 20)
            #expect(Set(lines.compactMap { $0["channel_id"] as? String }) == Set(channels), "both channels in turn")
        }
    }
}
