import Foundation
import SalvoMockAPNs
import SalvoTestSupport
import Testing

/// What an operator watches while things go wrong: the operations
/// listener through a drain, and the log and the liveness probe through a broker outage. The real
/// `salvo worker` and `salvo mock-apns` binaries, the real test broker.
@Suite("salvo worker: health during the drain, quiet through a broker outage", .serialized)
struct WorkerOutageTests {
    @Test(
        "SIGTERM with work in flight against a 3 s-latency mock: liveness 200, readiness 503 and metrics 200 throughout the drain; exit 0"
    )
    func healthDuringTheDrain() async throws {
        let scenario = "name: e2e-slow-drain\nlatency: {distribution: fixed, fixed_ms: 3000}\n"
        try await withWorkerStage(scenarioYAML: scenario) { stage in
            var fixture = CampaignFixture(seed: 21)
            fixture.addPerUser(id: "slow", count: 200, app: WorkerStage.app, fate: MockTokenFate())
            try await stage.enqueue(fixture.perUserLines, to: stage.priorityTopic)
            let worker = try stage.startWorker(try stage.writeWorkerConfiguration())
            let address = try await stage.operationsAddress(of: worker)
            var inFlightAtSignal = 0.0
            try await waitUntil(timeout: .seconds(60)) {
                inFlightAtSignal = counterTotal(
                    try await stage.metrics(of: worker), "salvo_notifications_in_flight", containing: "")
                return inFlightAtSignal > 0
            }
            #expect(inFlightAtSignal > 0, "no notification in flight: \(worker.stderr.suffix(2_000))")

            worker.signal(SIGTERM)
            let signalled = ContinuousClock.now
            var polls: [OperationsPoll] = []
            while worker.isRunning {
                polls.append(try await OperationsPoll.take(address, since: signalled))
                try await Task.sleep(for: .milliseconds(100))
            }
            let status = await worker.waitForExit(timeout: .seconds(30))
            #expect(status == 0, "exit status \(String(describing: status)): \(worker.stderr.suffix(3_000))")

            // The listener closes after the engine has drained, a moment before the process
            // exits: polls in that moment find nothing listening. None may come before an answer.
            var answered = Array(polls.prefix { $0.connected })
            let afterClose = polls.dropFirst(answered.count)
            // The listener may close between one poll's three requests: that poll, the last to
            // connect, has its first answers and then nothing. Its answers must still be right.
            if let closing = answered.last, !closing.complete {
                answered.removeLast()
                #expect(
                    closing.live == 200 && [0, 503].contains(closing.ready) && closing.metrics == 0,
                    "the poll the listener closed during: \(closing)")
            }
            #expect(afterClose.allSatisfy { !$0.connected }, "the listener answered again after refusing: \(polls)")
            #expect(afterClose.count <= 3, "the listener closed long before the process exited: \(polls)")
            print(
                "drain: \(answered.count) polls answered over \(answered.last?.startedAfter.milliseconds ?? 0) ms, \(afterClose.count) after the listener closed"
            )
            #expect(answered.count >= 10, "the drain of 3 s answers was observed for too short a time: \(polls)")
            let wrong = answered.filter { $0.live != 200 || $0.ready != 503 || $0.metrics != 200 }
            #expect(wrong.isEmpty, "polls during the drain: \(wrong)")

            // The scrapes are the worker's live counters: the first shows the work being drained.
            // (The listener closes within moments of the last answer, after the engine returned,
            // so a poll every 100 ms rarely sees the very last values.)
            let inFlight = answered.map {
                counterTotal($0.metricsText, "salvo_notifications_in_flight", containing: "")
            }
            let delivered = answered.map {
                counterTotal($0.metricsText, "salvo_notifications_total", containing: #"outcome="delivered""#)
            }
            print(
                "drain: in flight \(inFlight.first ?? 0) at the first poll, \(inFlight.last ?? 0) at the last; delivered \(delivered.last ?? 0) at the last"
            )
            #expect((inFlight.first ?? 0) > 0, "no work in flight scraped during the drain")
            #expect(zip(delivered, delivered.dropFirst()).allSatisfy { $0 <= $1 }, "\(delivered)")
            try await Task.sleep(for: .milliseconds(1_500))  // the mock flushes its record every second
            let accepted = try stage.record().distinctTokens
            #expect(
                Double(accepted) >= inFlightAtSignal,
                "\(accepted) accepted: the drain did not finish the \(inFlightAtSignal) in flight")
        }
    }

    @Test(
        "broker paused with SIGSTOP for 60 s during a run, then SIGCONT: 0 lost, the worker keeps running, under one log line a second during the pause, liveness 200 throughout"
    )
    func brokerPaused() async throws {
        let environment = ProcessInfo.processInfo.environment
        let broker = try #require(
            environment["SALVO_TEST_BROKER_PID"].flatMap { Int32($0) },
            "SALVO_TEST_BROKER_PID is set by scripts/with-broker.sh")
        let pause = Duration.seconds(60)
        try await withWorkerStage(scenarioYAML: "name: e2e-broker-pause\nlatency: {distribution: fixed, fixed_ms: 5}\n")
        { stage in
            var fixture = CampaignFixture(seed: 22)
            fixture.addCampaign(
                id: "before", jobs: 20, tokensPerJob: 1_000, app: WorkerStage.app, fate: MockTokenFate())
            try await stage.enqueue(fixture.campaignLines, to: stage.jobsTopic)
            // The operator's default log level: every line an outage writes there counts. The
            // commit gate's bound is lowered so that it, not the size of the campaign, bounds what
            // the lost assignment re-sends.
            let file = try stage.writeWorkerConfiguration(logLevel: "info")
            let text = try String(contentsOf: file, encoding: .utf8)
                .replacingOccurrences(
                    of: "  client_id: salvo-e2e\n",
                    with: "  client_id: salvo-e2e\n  max_uncommitted_notifications: 2000\n")
            try text.write(to: file, atomically: true, encoding: .utf8)
            let worker = try stage.startWorker(file)
            let address = try await stage.operationsAddress(of: worker)
            try await waitUntil(timeout: .seconds(120)) { try stage.record().distinctTokens >= 2_000 }

            // Paused mid-campaign: sends to APNs go on, commits and the group's heartbeats do not.
            let mark = worker.outputMark()
            kill(broker, SIGSTOP)
            defer { kill(broker, SIGCONT) }  // other tests share the broker
            let paused = ContinuousClock.now
            var probes: [OperationsPoll] = []
            while paused.duration(to: .now) < pause {
                probes.append(try await OperationsPoll.take(address, since: paused))
                try await Task.sleep(for: .seconds(1))
            }
            kill(broker, SIGCONT)
            let pausedFor = paused.duration(to: .now)
            // Lines librdkafka queued while the broker was away surface when it answers again:
            // they count against the pause too.
            try await Task.sleep(for: .seconds(10))
            let lines = worker.outputLines(since: mark)
            let perSecond = Double(lines.count) / Double(pausedFor.components.seconds)
            print(
                "broker paused \(pausedFor.milliseconds) ms: \(lines.count) lines by 10 s after it resumed (\(perSecond) a second)"
            )
            #expect(perSecond < 1, "\(lines.count) lines:\n\(lines.joined(separator: "\n"))")
            #expect(
                probes.count >= 30 && probes.allSatisfy { $0.live == 200 },
                "liveness during the pause: \(probes.filter { $0.live != 200 })")
            #expect(worker.isRunning, "the worker exited: \(worker.stderr.suffix(3_000))")

            // Jobs produced after the pause are delivered too, and nothing is lost.
            var after = CampaignFixture(seed: 23)
            after.addPerUser(id: "after", count: 200, app: WorkerStage.app, fate: MockTokenFate())
            try await stage.enqueue(after.perUserLines, to: stage.priorityTopic)
            let expected = fixture.expected.delivered.union(after.expected.delivered)
            let record = try await stage.waitForDeliveries(of: expected, timeout: .seconds(180))
            let missing = expected.filter { record.acceptedCount[$0] == nil }
            #expect(
                missing.isEmpty,
                "\(missing.count) of \(expected.count) notifications lost; stderr: \(worker.stderr.suffix(3_000))")
            print("after the pause: \(record.distinctTokens) tokens accepted, \(record.duplicates) duplicates")
            // The gate's bound (2,000) plus the in-flight window (2 connections × 1,000 streams + 10 %),
            // and the work completed in the commit interval before the gate closed.
            #expect(record.duplicates <= 2_000 + 2_200 + 1_000, "\(record.duplicates) duplicates after a broker outage")
            #expect(record.acceptedCount.values.allSatisfy { $0 <= 2 }, "none thrice")
            #expect(worker.isRunning)
            worker.signal(SIGTERM)
            #expect(await worker.waitForExit(timeout: .seconds(30)) == 0)
            // Committed to the end: a restart sends nothing again, although the group lost these
            // partitions during the pause and handed them back.
            let uncommitted =
                try await stage.uncommittedPartitions(of: stage.jobsTopic, group: stage.groupID)
                + stage.uncommittedPartitions(of: stage.priorityTopic, group: "\(stage.groupID).priority")
            #expect(uncommitted.isEmpty, "\(uncommitted)")
        }
    }

    @Test(
        "a broker that refuses every connection for 30 s: under one log line a second, the first failure at warning or above, liveness 200"
    )
    func brokerRefusing() async throws {
        try await withWorkerStage(scenarioYAML: "name: e2e-broker-refusing\n") { stage in
            let port = try ClosedPort.find()
            let worker = try stage.startWorker(
                try stage.writeWorkerConfiguration(brokers: "127.0.0.1:\(port)", logLevel: "info"))
            let address = try await stage.operationsAddress(of: worker)
            let mark = worker.outputMark()
            let started = ContinuousClock.now
            var probes: [OperationsPoll] = []
            while started.duration(to: .now) < .seconds(30) {
                probes.append(try await OperationsPoll.take(address, since: started))
                try await Task.sleep(for: .seconds(1))
            }
            let lines = worker.outputLines(since: mark)
            print("broker refusing for 30 s: \(lines.count) lines")
            #expect(lines.count < 30, "\(lines.count) lines:\n\(lines.joined(separator: "\n"))")
            // Counted from the start: the first failure may come before the listener's address.
            let firstFailure = worker.stderr.split(separator: "\n").first { $0.contains("Connection refused") }
            #expect(
                firstFailure.map { $0.contains(" warning ") || $0.contains(" error ") } == true,
                "the first failure: \(firstFailure ?? "none")")
            #expect(
                lines.contains { $0.contains("more like it") && $0.contains("suppressed=") }, "no summary with a count")
            #expect(
                probes.allSatisfy { $0.live == 200 && $0.ready == 503 },
                "\(probes.filter { $0.live != 200 || $0.ready != 503 })")
            #expect(worker.isRunning)
        }
    }
}
