import Foundation
import SalvoMockAPNs
import SalvoTestSupport
import Testing

/// Fault tolerance with the real `salvo worker` and `salvo mock-apns` binaries on the real
/// test broker: an APNs outage holds work instead of dead-lettering it, and a record Kafka refuses
/// for good never blocks its partition.
@Suite("salvo worker: faults hold work, poison records pass", .serialized)
struct WorkerFaultToleranceTests {
    @Test(
        "a total APNs outage longer than the retry schedule: 0 dead letters, everything delivered after recovery, a trickle of requests, bounded memory"
    )
    func outageHoldsWork() async throws {
        try await withWorkerStage(scenarioYAML: "name: e2e-outage\nseed: 3\n") { stage in
            // Apple down for 40 s from before the first request. The retry schedule below would
            // be used up in about 2 s: before pools had a health state, every notification was
            // dead-lettered as retries_exhausted. SALVO_OUTAGE_SECONDS=600 SALVO_OUTAGE_DEFAULTS=1
            // is the manual 10-minute run at the default retry schedule (docs/benchmarks.md).
            let environment = ProcessInfo.processInfo.environment
            let outage = environment["SALVO_OUTAGE_SECONDS"].flatMap(Int.init) ?? 40
            let atDefaults = environment["SALVO_OUTAGE_DEFAULTS"] == "1"
            let admin = "http://127.0.0.1:\(stage.mockAdminPort)"
            let storm = try await ExternalProcess.run(
                URL(fileURLWithPath: "/usr/bin/curl"),
                ["-sf", "-X", "POST", "\(admin)/shutdown-storm?seconds=\(outage)"], timeout: .seconds(10))
            #expect(storm.status == 0, "storm started: \(storm.stderr)")
            let stormStarted = ContinuousClock.now
            var fixture = CampaignFixture(seed: 15)
            fixture.addCampaign(
                id: "outage", jobs: 10, tokensPerJob: 1_000, app: WorkerStage.app, fate: MockTokenFate())
            try await stage.enqueue(fixture.campaignLines, to: stage.jobsTopic)
            let configuration = try stage.writeWorkerConfiguration(
                extra: atDefaults
                    ? ""
                    : """
                    retry:
                      backoff: {initial: 100ms, max: 400ms}
                      batch_window: 20ms
                    outcomes:
                      max_attempts: 3
                    device_rate_limit: null
                    """)
            let worker = try stage.startWorker(configuration)

            // During the outage: the mock sees a trickle, not a storm.
            try await Task.sleep(until: stormStarted + .seconds(outage - 2))
            let during = try await Self.stats(admin)
            let requestsDuringOutage = during.rejectedTotal + during.accepted
            print("outage: \(requestsDuringOutage) requests in \(outage - 2) s for 10,000 notifications")
            #expect(requestsDuringOutage < 10 * 10_000)
            let metrics = try await stage.metrics(of: worker)
            #expect(
                counterTotal(metrics, "salvo_apns_pool_healthy", containing: "pool=") == 0, "the pool reports unhealthy"
            )

            let record = try await stage.waitForDeliveries(
                of: fixture.expected.delivered, timeout: .seconds(atDefaults ? 600 : 180))
            let missing = fixture.expected.delivered.filter { record.acceptedCount[$0] == nil }
            #expect(
                missing.isEmpty,
                "\(missing.count) notifications not delivered after recovery; stderr: \(worker.stderr.suffix(2_000))")
            let deadLetters = try await stage.deadLetters()
            #expect(deadLetters.isEmpty, "dead letters: \(deadLetters.prefix(5))")
            let peak = Self.peakResidentMegabytes(of: worker.processIdentifier)
            print("outage: worker peak RSS \(peak) MB")
            #expect(peak > 0 && peak < 300)
            _ = try await waitUntil(timeout: .seconds(30)) {
                try await stage.uncommittedPartitions(of: stage.jobsTopic, group: stage.groupID).isEmpty
            }
            #expect(try await stage.uncommittedPartitions(of: stage.jobsTopic, group: stage.groupID).isEmpty)
        }
    }

    @Test(
        "a 1.2 MB unknown-app job before valid jobs on one partition: a body-less dead letter, the valid jobs delivered, the offset passes it, few log lines"
    )
    func poisonRecordPasses() async throws {
        try await withWorkerStage(scenarioYAML: "name: e2e-poison\n", partitions: 1) { stage in
            let filler = String(repeating: "x", count: 1_200_000)
            let poison =
                #"{"id":"poison","app":"nope","token":"\#(String(repeating: "a", count: 64))","payload":{"aps":{"alert":"\#(filler)"}}}"#
            let file = stage.directory.appendingPathComponent("poison.ndjson")
            try poison.write(to: file, atomically: true, encoding: .utf8)
            // kcat with a larger message.max.bytes: the worker's producer keeps librdkafka's 1 MB.
            let produced = try await CommandRunner.kcat([
                "-b", stage.cluster.brokers, "-P", "-t", stage.jobsTopic, "-X", "message.max.bytes=4000000", "-l",
                file.path,
            ])
            #expect(produced.status == 0, "kcat: \(produced.stderr)")
            var fixture = CampaignFixture(seed: 16)
            fixture.addCampaign(
                id: "after-poison", jobs: 5, tokensPerJob: 100, app: WorkerStage.app, fate: MockTokenFate())
            try await stage.enqueue(fixture.campaignLines, to: stage.jobsTopic)

            let started = ContinuousClock.now
            let worker = try stage.startWorker(try stage.writeWorkerConfiguration(extra: "device_rate_limit: null"))
            let record = try await stage.waitForDeliveries(of: fixture.expected.delivered, timeout: .seconds(60))
            #expect(fixture.expected.delivered.allSatisfy { record.acceptedCount[$0] != nil })
            let passed = try await waitUntil(timeout: .seconds(60)) {
                try await stage.uncommittedPartitions(of: stage.jobsTopic, group: stage.groupID).isEmpty
            }
            #expect(passed, "the committed offset passed the poison record")
            print("poison: committed past it after \(started.duration(to: .now))")

            let headers = try await stage.cluster.read(stage.deadLetterTopic, format: "%S\t%h\n")
            let lines = headers.stdoutText.split(separator: "\n")
            #expect(lines.count == 1, "one dead letter: \(lines)")
            let line = String(lines.first ?? "")
            #expect(line.hasPrefix("0\t"), "without its body: \(line.prefix(200))")
            // Over the job size limit (which leaves room under the producer's message.max.bytes)
            // or, with a larger limit, an unknown app: either way its dead letter is too large.
            #expect(line.contains("salvo-reason=job_too_large") || line.contains("salvo-reason=unknown_app"))
            #expect(line.contains("salvo-source-topic=\(stage.jobsTopic)"))
            #expect(line.contains("salvo-source-offset=0"))
            #expect(line.contains("salvo-body-omitted=MSG_SIZE_TOO_LARGE"))
            #expect(line.contains("salvo-original-sha256="))

            worker.signal(SIGTERM)
            #expect(await worker.waitForExit(timeout: .seconds(30)) == 0)
            let output = worker.stdout + worker.stderr
            let aboutIt = output.split(separator: "\n").filter {
                $0.contains("refused") || $0.contains("not acknowledged")
            }
            #expect(aboutIt.count <= 200, "\(aboutIt.count) log lines about the poison record")
        }
    }

    private struct Stats: Decodable {
        var accepted: Int
        var rejectedTotal: Int

        enum CodingKeys: String, CodingKey {
            case accepted
            case rejectedTotal = "rejected_total"
        }
    }

    private static func stats(_ admin: String) async throws -> Stats {
        let result = try await ExternalProcess.run(
            URL(fileURLWithPath: "/usr/bin/curl"), ["-sf", "\(admin)/stats"], timeout: .seconds(10))
        return try JSONDecoder().decode(Stats.self, from: Data(result.stdoutText.utf8))
    }

    /// VmHWM of a running process, in MB (0 if it cannot be read).
    private static func peakResidentMegabytes(of pid: Int32) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return 0 }
        return kilobytes / 1024
    }
}
