import Foundation
import SalvoMockAPNs
import SalvoTestSupport
import Testing

/// What a running `salvo worker` exports is a clean Prometheus exposition with
/// rate, errors and duration on both sides (APNs and Kafka), labelled as docs/metrics.md says.
@Suite("salvo worker RED metrics", .serialized)
struct WorkerREDMetricsTests {
    @Test(
        "a live worker's /metrics passes promtool check metrics, with HELP on every family, build info and the RED families"
    )
    func liveExposition() async throws {
        try await withWorkerStage(scenarioYAML: WorkerAcceptanceTests.deadTokenScenario) { stage in
            var fixture = CampaignFixture(seed: 22)
            fixture.addPerUser(id: "red", count: 400, app: WorkerStage.app, fate: WorkerAcceptanceTests.deadTokens)
            try await stage.enqueue(fixture.perUserLines, to: stage.priorityTopic)
            let worker = try stage.startWorker(try stage.writeWorkerConfiguration())
            let address = try await stage.operationsAddress(of: worker)
            _ = try await stage.waitForDeliveries(of: fixture.expected.delivered, timeout: .seconds(120))
            var scrape = PrometheusScrape("")
            // Feedback is produced and acknowledged, commits happen every 250 ms.
            try await waitUntil(timeout: .seconds(30)) {
                scrape = PrometheusScrape(try await stage.metrics(of: worker))
                return scrape.sum("salvo_kafka_produce_duration_seconds_count", ["topic": stage.feedbackTopic]) > 0
                    && scrape.sum("salvo_consumer_commit_duration_seconds_count") > 0
            }

            let file = stage.directory.appendingPathComponent("metrics.txt")
            try scrape.text.write(to: file, atomically: true, encoding: .utf8)
            let lint = try await ExternalProcess.run(
                URL(fileURLWithPath: "/usr/bin/promtool"), ["check", "metrics"], stdin: file, timeout: .seconds(30))
            #expect(lint.status == 0, "promtool check metrics: \(lint.stdoutText)\(lint.stderr)")
            #expect(scrape.families.count >= 30)
            #expect(
                scrape.families.subtracting(scrape.familiesWithHelp).isEmpty,
                "no HELP: \(scrape.families.subtracting(scrape.familiesWithHelp).sorted())")
            let documented = MetricNames.documented(markdown: try RepositoryFiles.text("docs/metrics.md"))
            #expect(
                scrape.families.subtracting(documented).isEmpty,
                "undocumented: \(scrape.families.subtracting(documented).sorted())")

            // Build info names what `salvo version` prints.
            let version = try await CommandRunner.salvo(["version"])
            let build = try #require(scrape.select("salvo_build_info").first)
            #expect(build.value == 1)
            for key in ["version", "librdkafka", "nghttp2"] {
                let value = try #require(build.labels[key])
                #expect(
                    !value.isEmpty && version.stdoutText.contains(value), "\(key)=\(value) vs \(version.stdoutText)")
            }

            // APNs: pool = <app>/<environment>, latency by status class, answers by status and reason.
            let pool = ["pool": "\(WorkerStage.app)/production"]
            #expect(
                scrape.sum("salvo_apns_request_duration_seconds_count", pool.merging(["status_class": "2xx"]) { $1 })
                    >= Double(fixture.expected.delivered.count))
            #expect(
                scrape.sum("salvo_apns_request_duration_seconds_count", pool.merging(["status_class": "4xx"]) { $1 })
                    >= 1)
            #expect(
                scrape.sum("salvo_apns_requests_total", pool.merging(["status": "200", "reason": ""]) { $1 })
                    >= Double(fixture.expected.delivered.count))
            #expect(
                scrape.sum(
                    "salvo_apns_requests_total", pool.merging(["status": "410", "reason": "Unregistered"]) { $1 }) >= 1)
            #expect(
                Set(scrape.select("salvo_apns_failures_total", pool).compactMap { $0.labels["code"] }) == [
                    "not_sent", "timed_out", "connection_lost", "other",
                ])
            #expect(scrape.select("salvo_apns_pool_healthy", pool).first?.value == 1)
            // Present at zero from the start: feedback reasons that never happened in this run.
            for reason in ["ExpiredToken", "DeviceTokenNotForTopic"] {
                #expect(
                    scrape.select("salvo_feedback_events_total", ["app": WorkerStage.app, "reason": reason]).first?
                        .value == 0)
            }

            // Kafka: both groups joined, every partition assigned here, commits succeed.
            for group in [stage.groupID, stage.groupID + ".priority"] {
                #expect(scrape.sum("salvo_consumer_rebalances_total", ["group": group]) >= 1, "\(group)")
                #expect(
                    scrape.select("salvo_consumer_commit_failures_total", ["group": group]).first?.value == 0,
                    "\(group)")
            }
            #expect(scrape.sum("salvo_consumer_assigned_partitions") == 12)
            #expect(
                scrape.select("salvo_kafka_produce_failures_total", ["topic": stage.feedbackTopic]).first?.value == 0)

            let started = try await ExternalProcess.run(
                URL(fileURLWithPath: "/usr/bin/curl"),
                ["-s", "-o", "/dev/null", "-w", "%{http_code}", "\(address)/health/started"], timeout: .seconds(10))
            #expect(started.stdoutText == "200")
        }
    }

    /// A partition's lag is known once its consumer has read from it (the done watermark), so the
    /// test sends per-user jobs to every partition of the priority topic before and after the
    /// second worker joins.
    @Test("after a rebalance moves partitions away, the old owner stops exporting their lag within 30 s")
    func lagOfRevokedPartitions() async throws {
        try await withWorkerStage(scenarioYAML: WorkerAcceptanceTests.deadTokenScenario) { stage in
            var fixture = CampaignFixture(seed: 23)
            fixture.addPerUser(id: "before", count: 40, app: WorkerStage.app, fate: WorkerAcceptanceTests.deadTokens)
            try await stage.enqueue(fixture.perUserLines, to: stage.priorityTopic)
            let configuration = try stage.writeWorkerConfiguration()
            let first = try stage.startWorker(configuration, name: "first")
            let priority = ["group": stage.groupID + ".priority"]
            var alone = PrometheusScrape("")
            let allSampled = try await waitUntil(timeout: .seconds(60)) {
                alone = PrometheusScrape(try await stage.metrics(of: first))
                return Self.lagPartitions(alone, topic: stage.priorityTopic).count == 4
            }
            #expect(
                allSampled,
                "the first worker samples the lag of the 4 priority partitions: \(Self.lagPartitions(alone, topic: stage.priorityTopic).sorted())"
            )

            let second = try stage.startWorker(configuration, name: "second")
            let rebalanced = try await waitUntil(timeout: .seconds(60)) {
                PrometheusScrape(try await stage.metrics(of: second)).sum(
                    "salvo_consumer_assigned_partitions", priority) > 0
            }
            #expect(rebalanced, "the second worker got no priority partition")
            let moved = ContinuousClock.now
            var after = CampaignFixture(seed: 24)
            after.addPerUser(id: "after", count: 40, app: WorkerStage.app, fate: WorkerAcceptanceTests.deadTokens)
            try await stage.enqueue(after.perUserLines, to: stage.priorityTopic)
            var firstScrape = PrometheusScrape("")
            var secondScrape = PrometheusScrape("")
            let settled = try await waitUntil(timeout: .seconds(30) - moved.duration(to: .now)) {
                firstScrape = PrometheusScrape(try await stage.metrics(of: first))
                secondScrape = PrometheusScrape(try await stage.metrics(of: second))
                let kept = Self.lagPartitions(firstScrape, topic: stage.priorityTopic)
                let taken = Self.lagPartitions(secondScrape, topic: stage.priorityTopic)
                return kept.count <= Int(firstScrape.sum("salvo_consumer_assigned_partitions", priority))
                    && kept.count < 4
                    && !taken.isEmpty && kept.isDisjoint(with: taken)
            }
            #expect(
                settled,
                "30 s after the rebalance the first worker exports the lag of \(Self.lagPartitions(firstScrape, topic: stage.priorityTopic).sorted()), assigned \(firstScrape.sum("salvo_consumer_assigned_partitions", priority)); the second \(Self.lagPartitions(secondScrape, topic: stage.priorityTopic).sorted())"
            )
            print("lag series of revoked partitions gone \(moved.duration(to: .now)) after the rebalance")
            #expect(
                firstScrape.sum("salvo_consumer_rebalances_total", priority) >= 2,
                "the first worker counts its rebalances")
        }
    }

    /// The partitions of `topic` with a `salvo_consumer_lag` series.
    private static func lagPartitions(_ scrape: PrometheusScrape, topic: String) -> Set<String> {
        Set(scrape.select("salvo_consumer_lag", ["topic": topic]).compactMap { $0.labels["partition"] })
    }
}
