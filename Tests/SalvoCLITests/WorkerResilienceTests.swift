import Foundation
import SalvoAPNs
import SalvoMockAPNs
import SalvoTestSupport
import Testing

/// The worker under trouble: a misbehaving gateway, a worker killed or stopped mid-way,
/// and bad input between good jobs. The real `salvo worker` and `salvo mock-apns` binaries, the
/// real test broker.
@Suite("salvo worker under faults", .serialized)
struct WorkerResilienceTests {
    static let fate = WorkerAcceptanceTests.deadTokens

    @Test(
        "5 % 503s, GOAWAY every 2 s, per-token 429s and latency spikes: nothing lost, retries in the metrics, attempts bounded"
    )
    func faultyGateway() async throws {
        let scenario = """
            name: e2e-faults
            tokens:
              unregistered: 0.01
              bad_device_token: 0.005
            latency:
              distribution: lognormal
              p50_ms: 2
              p99_ms: 150
            errors:
              service_unavailable: 0.05
            goaway:
              every_seconds: 2
            rate_limit:
              requests: 5
              per_seconds: 600
            seed: 7
            """
        try await withWorkerStage(scenarioYAML: scenario) { stage in
            var fixture = CampaignFixture(seed: 2)
            fixture.addCampaign(id: "faults", jobs: 20, tokensPerJob: 1_000, app: WorkerStage.app, fate: Self.fate)
            // One device pushed 8 times in one job: the mock allows a device 5 requests per 10
            // minutes (room for the other tokens' 503 retries), so at least 3 copies get 429 on
            // every attempt and must end in the DLQ after max_attempts. max_attempts is 8, not
            // fewer: with 5 % 503s drawn per request, 4 attempts would dead-letter a valid token
            // in about one run of eight (0.05^4 × 20,000 tokens); 8 attempts make it ~1e-6.
            var hammered = fixture.token()
            while Self.fate.outcome(for: try .init(hex: hammered)) != .valid { hammered = fixture.token() }
            let copies = Array(repeating: "\"\(hammered)\"", count: 8).joined(separator: ",")
            fixture.campaignLines.append(
                #"{"id":"hammer","app":"shop","tokens":[\#(copies)],"payload":{"aps":{"alert":"again"}}}"#)
            fixture.expected.delivered.insert(hammered)
            try await stage.enqueue(fixture.campaignLines, to: stage.jobsTopic)

            let configuration = try stage.writeWorkerConfiguration(
                extra: """
                    retry:
                      backoff: {initial: 100ms, max: 1s}
                      too_many_requests: {initial: 200ms, max: 500ms}
                      batch_window: 50ms
                    outcomes:
                      max_attempts: 8
                    device_rate_limit: null
                    """)
            let worker = try stage.startWorker(configuration)
            let record = try await stage.waitForDeliveries(of: fixture.expected.delivered, timeout: .seconds(300))
            let missing = fixture.expected.delivered.filter { record.acceptedCount[$0] == nil }
            #expect(
                missing.count == 0, "\(missing.count) valid tokens lost; worker stderr: \(worker.stderr.suffix(3_000))")
            print("faulty gateway: \(record.distinctTokens) tokens accepted, \(record.duplicates) duplicates")
            if !missing.isEmpty {
                let scrape = try await stage.metrics(of: worker)
                print(
                    scrape.split(separator: "\n").filter {
                        $0.hasPrefix("salvo_") && !$0.hasSuffix(" 0") && !$0.contains("_bucket")
                    }.joined(separator: "\n"))
            }
            try await stage.expectFeedback(equals: fixture.expected.feedback, allowDuplicates: true)

            var exhausted: [(reason: String, key: String)] = []
            try await waitUntil(timeout: .seconds(60)) {
                exhausted = try await stage.deadLetters().filter { $0.reason == "retries_exhausted" }
                return exhausted.count >= 3
            }
            // The mock counts a request against the device's limit before it draws a 503, so a
            // copy answered 503 first may use up one more of the 5: at least 3 copies are refused
            // to the end, and every copy ends either accepted or dead-lettered, never both.
            let hammerAccepted = try stage.record().acceptedCount[hammered] ?? 0
            #expect(exhausted.count >= 3 && exhausted.allSatisfy { $0.key == "hammer" }, "\(exhausted.prefix(10))")
            #expect(
                hammerAccepted <= 5 && hammerAccepted + exhausted.count == 8,
                "\(hammerAccepted) accepted, \(exhausted.count) exhausted")

            let metrics = try await stage.metrics(of: worker)
            #expect(counterTotal(metrics, "salvo_notifications_total", containing: "outcome=\"retry_scheduled\"") > 0)
            worker.signal(SIGTERM)
            #expect(await worker.waitForExit(timeout: .seconds(30)) == 0)
            #expect(try await stage.uncommittedPartitions(of: stage.jobsTopic, group: stage.groupID) == [])
        }
    }

    @Test("SIGKILL mid-campaign, then a new worker: nothing lost, duplicates counted")
    func killedMidCampaign() async throws {
        try await restartMidCampaign(signal: SIGKILL)
    }

    @Test("SIGTERM mid-campaign: exit 0 within the drain deadline, and a new worker finishes the campaign")
    func stoppedMidCampaign() async throws {
        try await restartMidCampaign(signal: SIGTERM)
    }

    private func restartMidCampaign(signal: Int32) async throws {
        try await withWorkerStage(
            scenarioYAML: WorkerAcceptanceTests.deadTokenScenario + "\nlatency: {distribution: fixed, fixed_ms: 5}\n"
        ) { stage in
            var fixture = CampaignFixture(seed: signal == SIGKILL ? 3 : 4)
            fixture.addCampaign(id: "restart", jobs: 40, tokensPerJob: 1_000, app: WorkerStage.app, fate: Self.fate)
            try await stage.enqueue(fixture.campaignLines, to: stage.jobsTopic)
            // 3,000/s: the 40,000 tokens take ~13 s, so the signal lands mid-campaign however fast
            // the worker and the mock are.
            let configuration = try stage.writeWorkerConfiguration(ratePerSecond: 3_000)

            let first = try stage.startWorker(configuration, name: "first worker")
            try await waitUntil(timeout: .seconds(120)) { try stage.record().distinctTokens >= 5_000 }
            let before = try stage.record().distinctTokens
            #expect(
                before < fixture.expected.delivered.count, "the campaign finished before the worker was interrupted")
            first.signal(signal)
            let status = await first.waitForExit(timeout: .seconds(30))
            if signal == SIGTERM {
                #expect(status == 0, "SIGTERM exit status \(String(describing: status)): \(first.stderr.suffix(3_000))")
            }

            let second = try stage.startWorker(configuration, name: "second worker")
            let record = try await stage.waitForDeliveries(of: fixture.expected.delivered, timeout: .seconds(300))
            let missing = fixture.expected.delivered.filter { record.acceptedCount[$0] == nil }
            #expect(
                missing.count == 0,
                "\(missing.count) valid tokens lost after the restart; stderr: \(second.stderr.suffix(3_000))")
            print(
                "restart after signal \(signal): \(before) tokens before, \(record.distinctTokens) after, \(record.duplicates) duplicates"
            )
            try await stage.expectFeedback(equals: fixture.expected.feedback, allowDuplicates: true)
            second.signal(SIGTERM)
            #expect(await second.waitForExit(timeout: .seconds(30)) == 0)
            #expect(try await stage.uncommittedPartitions(of: stage.jobsTopic, group: stage.groupID) == [])
        }
    }

    @Test(
        "24 bad jobs between good ones: each dead-lettered with its reason, the good ones delivered, offsets committed")
    func badJobs() async throws {
        try await withWorkerStage(scenarioYAML: "name: e2e-bad-jobs\n", partitions: 1) { stage in
            var fixture = CampaignFixture(seed: 5)
            fixture.addPerUser(id: "good", count: 50, app: WorkerStage.app, fate: MockTokenFate())
            let token = fixture.token()
            let big = String(repeating: "x", count: 4_100)
            let bad: [(String, String)] = [
                ("malformed_json", #"{"id":"b1","app":"shop""#),
                ("malformed_json", "not json at all"),
                ("not_an_object", #"["id","b3"]"#),
                ("duplicate_field", #"{"id":"b4","id":"b4","app":"shop","token":"\#(token)","payload":{}}"#),
                ("missing_field", #"{"app":"shop","token":"\#(token)","payload":{}}"#),
                ("missing_field", #"{"id":"b6","app":"shop","payload":{}}"#),
                ("missing_field", #"{"id":"b7","app":"shop","token":"\#(token)"}"#),
                ("invalid_field", #"{"id":7,"app":"shop","token":"\#(token)","payload":{}}"#),
                (
                    "conflicting_fields",
                    #"{"id":"b9","app":"shop","token":"\#(token)","tokens":["\#(token)"],"payload":{}}"#
                ),
                ("unknown_app", #"{"id":"b10","app":"nope","token":"\#(token)","payload":{}}"#),
                ("empty_token_list", #"{"id":"b11","app":"shop","tokens":[],"payload":{}}"#),
                ("invalid_token", #"{"id":"b12","app":"shop","token":"xyz","payload":{}}"#),
                ("invalid_token", #"{"id":"b13","app":"shop","token":"abc","payload":{}}"#),
                ("invalid_payload", #"{"id":"b14","app":"shop","token":"\#(token)","payload":[1]}"#),
                (
                    "payload_too_large",
                    #"{"id":"b15","app":"shop","token":"\#(token)","payload":{"aps":{"alert":"\#(big)"}}}"#
                ),
                (
                    "invalid_push_type",
                    #"{"id":"b16","app":"shop","token":"\#(token)","payload":{},"push_type":"shout"}"#
                ),
                ("invalid_priority", #"{"id":"b17","app":"shop","token":"\#(token)","payload":{},"priority":7}"#),
                (
                    "invalid_priority",
                    #"{"id":"b18","app":"shop","token":"\#(token)","payload":{},"push_type":"background","priority":10}"#
                ),
                (
                    "invalid_topic",
                    #"{"id":"b19","app":"shop","token":"\#(token)","payload":{},"push_type":"voip","topic":"com.example.shop"}"#
                ),
                ("invalid_expiration", #"{"id":"b20","app":"shop","token":"\#(token)","payload":{},"expiration":-1}"#),
                (
                    "invalid_collapse_id",
                    #"{"id":"b21","app":"shop","token":"\#(token)","payload":{},"collapse_id":"\#(String(repeating: "c", count: 65))"}"#
                ),
                (
                    "invalid_environment",
                    #"{"id":"b22","app":"shop","token":"\#(token)","payload":{},"environment":"staging"}"#
                ),
                ("missing_field", #"{"id":"b23","app":"shop","token":"\#(token)","payload":{},"push_type":"mdm"}"#),
                (
                    "invalid_per_token",
                    #"{"id":"b24","app":"shop","tokens":["\#(token)"],"payload":{},"per_token":{"\#(token)":{"badge":"x"}}}"#
                ),
            ]
            // Bad and good alternate on one partition: a bad job must never hold the good behind it.
            var lines: [String] = []
            for (index, good) in fixture.perUserLines.enumerated() {
                lines.append(good)
                if index < bad.count { lines.append(bad[index].1) }
            }
            let file = stage.directory.appendingPathComponent("mixed.ndjson")
            try CampaignFixture.write(lines, to: file)
            let produced = try await CommandRunner.kcat([
                "-b", stage.cluster.brokers, "-P", "-t", stage.priorityTopic, "-l", file.path,
            ])
            #expect(produced.status == 0, "\(produced.stderr)")

            let worker = try stage.startWorker(try stage.writeWorkerConfiguration())
            let record = try await stage.waitForDeliveries(of: fixture.expected.delivered, timeout: .seconds(120))
            #expect(fixture.expected.delivered.allSatisfy { record.acceptedCount[$0] != nil })
            var letters: [(reason: String, key: String)] = []
            try await waitUntil(timeout: .seconds(60)) {
                letters = try await stage.deadLetters()
                return letters.count >= bad.count
            }
            #expect(letters.map(\.reason).sorted() == bad.map(\.0).sorted(), "\(letters.map(\.reason))")
            let metrics = try await stage.metrics(of: worker)
            #expect(counterTotal(metrics, "salvo_dead_letters_total", containing: "") >= Double(bad.count))
            worker.signal(SIGTERM)
            #expect(await worker.waitForExit(timeout: .seconds(30)) == 0)
            #expect(
                try await stage.uncommittedPartitions(of: stage.priorityTopic, group: "\(stage.groupID).priority") == []
            )
        }
    }
}

/// Sum of a Prometheus counter's samples whose label set contains `labels`.
func counterTotal(_ exposition: String, _ name: String, containing labels: String) -> Double {
    exposition.split(separator: "\n").reduce(0) { total, line in
        guard line.hasPrefix(name + "{") || line.hasPrefix(name + " "), labels.isEmpty || line.contains(labels),
            let value = line.split(separator: " ").last.flatMap({ Double($0) })
        else { return total }
        return total + value
    }
}
