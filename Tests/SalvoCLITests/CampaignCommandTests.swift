import Foundation
import Logging
import SalvoKafka
import SalvoTestSupport
import SalvoWorker
import Synchronization
import Testing

/// `salvo campaign cancel|pause|resume|status` against the real broker, with the worker-side
/// follower and progress publisher as the worker will use them.
@Suite(.serialized) struct CampaignCommandTests {
    /// Creates <prefix>.* with `salvo topics create` (control and campaigns compacted) and returns
    /// the two campaign topics.
    private func campaignTopics(_ cluster: CLITestCluster) async throws -> (control: String, campaigns: String) {
        let prefix = cluster.uniqueName("cli-campaign")
        cluster.adopt(
            ["jobs", "jobs.priority", "feedback", "retry", "dlq", "outcomes", "control", "campaigns"].map {
                "\(prefix).\($0)"
            })
        let run = try await CommandRunner.salvo([
            "topics", "create", "--brokers", cluster.brokers, "--prefix", prefix, "--partitions", "2",
            "--replication-factor", "1",
        ])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(
            run.stdoutText.contains("created  \(prefix).control (2 partitions, replication factor 1, compacted)"),
            "\(run.stdoutText)")
        #expect(run.stdoutText.contains("created  \(prefix).campaigns (2 partitions, replication factor 1, compacted)"))
        return ("\(prefix).control", "\(prefix).campaigns")
    }

    private var quiet: Logger {
        var logger = Logger(label: "salvo.cli.test")
        logger.logLevel = .critical
        return logger
    }

    private func client(_ cluster: CLITestCluster) -> KafkaClientConfiguration {
        KafkaClientConfiguration(bootstrapServers: cluster.brokers, clientID: "salvo-cli-campaign-test")
    }

    @Test func aCancelFromTheCLIReachesFollowersStartedBeforeAndAfterIt() async throws {
        try await withCLITestCluster { cluster in
            let topics = try await campaignTopics(cluster)
            let before = try CampaignControlFollower(topic: topics.control, client: client(cluster), logger: quiet)
            try await before.start()
            #expect(try await before.caughtUp(timeout: .seconds(20)).decision(for: "spring") == .send)

            let cancel = try await CommandRunner.salvo([
                "campaign", "cancel", "spring", "--brokers", cluster.brokers, "--control-topic", topics.control,
                "--reason",
                "wrong audience",
                "--by", "cli-test",
            ])
            #expect(cancel.status == 0, "stderr: \(cancel.stderr)")
            #expect(cancel.stdoutText.contains("cancel spring: written to \(topics.control)"), "\(cancel.stdoutText)")

            let deadline = ContinuousClock.now + .seconds(10)
            while before.current.decision(for: "spring") != .cancel, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(before.current.decision(for: "spring") == .cancel, "the running follower saw the cancel")
            #expect(before.current.command(for: "spring")?.reason == "wrong audience")
            #expect(before.current.command(for: "spring")?.by == "cli-test")
            await before.close()

            let after = try CampaignControlFollower(topic: topics.control, client: client(cluster), logger: quiet)
            try await after.start()
            let replayed = try await after.caughtUp(timeout: .seconds(20))
            #expect(
                replayed.decision(for: "spring") == .cancel,
                "a follower started after the cancel reads it from the beginning")
            #expect(replayed.decision(for: "summer") == .send)
            await after.close()

            let status = try await CommandRunner.salvo([
                "campaign", "status", "spring", "--brokers", cluster.brokers, "--campaigns-topic", topics.campaigns,
                "--control-topic",
                topics.control, "--json",
            ])
            #expect(status.status == 0, "stderr: \(status.stderr)")
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(status.stdout)) as? [String: Any], "\(status.stdoutText)")
            #expect(object["state"] as? String == "cancelled")
            let command = try #require(object["command"] as? [String: Any])
            #expect(command["by"] as? String == "cli-test" && command["reason"] as? String == "wrong audience")

            let resume = try await CommandRunner.salvo([
                "campaign", "resume", "spring", "--brokers", cluster.brokers, "--control-topic", topics.control,
            ])
            #expect(resume.status != 0, "un-cancelling needs --force")
            #expect(resume.stderr.contains("--force"), "stderr: \(resume.stderr)")
        }
    }

    @Test func pauseAndResumeAreOrderedEvenWithinOneMillisecond() async throws {
        try await withCLITestCluster { cluster in
            let topics = try await campaignTopics(cluster)
            for action in ["pause", "resume", "pause"] {
                let run = try await CommandRunner.salvo([
                    "campaign", action, "summer", "--brokers", cluster.brokers, "--control-topic", topics.control,
                ])
                #expect(run.status == 0, "\(action): \(run.stderr)")
            }
            let follower = try CampaignControlFollower(topic: topics.control, client: client(cluster), logger: quiet)
            try await follower.start()
            #expect(try await follower.caughtUp(timeout: .seconds(20)).decision(for: "summer") == .hold)
            await follower.close()
        }
    }

    @Test func statusMergesTheProgressOfTwoWorkers() async throws {
        try await withCLITestCluster { cluster in
            let topics = try await campaignTopics(cluster)
            let producer = try KafkaProducer(
                configuration: KafkaProducerConfiguration(client: client(cluster)), logger: quiet)
            let ledgers = [SimulatedWorker("worker-a"), SimulatedWorker("worker-b")]
            let publishers = ledgers.indices.map { index in
                CampaignProgressPublisher(topic: topics.campaigns, producer: producer, logger: quiet) { [ledgers] now in
                    ledgers[index].ledger.withLock { $0.takeChangedRecords(now: now) }
                }
            }
            let start = UTCTimestamp.now()
            ledgers[0].ledger.withLock { $0.count(.accepted, campaignID: "spring", times: 600, at: start) }
            ledgers[1].ledger.withLock { $0.count(.accepted, campaignID: "spring", times: 300, at: start) }
            ledgers[1].ledger.withLock { $0.count(.accepted, campaignID: "autumn", times: 5, at: start) }
            for publisher in publishers { #expect(await publisher.publishOnce() >= 1) }
            // Later counts replace each worker's earlier record instead of adding to it.
            try await Task.sleep(for: .milliseconds(20))
            let later = start.advanced(by: .seconds(3))
            ledgers[0].ledger.withLock { ledger in
                ledger.count(.accepted, campaignID: "spring", times: 100, at: later)
                ledger.count(.feedback(reason: "Unregistered"), campaignID: "spring", times: 7, at: later)
                ledger.count(.cancelled, campaignID: "spring", times: 250, at: later)
            }
            ledgers[1].ledger.withLock { ledger in
                ledger.count(.deadLettered(afterSending: true), campaignID: "spring", times: 3, at: later)
                ledger.count(.retryScheduled, campaignID: "spring", times: 2, at: later)
            }
            for publisher in publishers { #expect(await publisher.publishOnce() == 1) }
            await producer.shutdown()

            let status = try await CommandRunner.salvo([
                "campaign", "status", "spring", "--brokers", cluster.brokers, "--campaigns-topic", topics.campaigns,
                "--control-topic",
                topics.control, "--json",
            ])
            #expect(status.status == 0, "stderr: \(status.stderr)")
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(status.stdout)) as? [String: Any], "\(status.stdoutText)")
            #expect(object["accepted"] as? Int == 1_000)
            #expect(object["cancelled"] as? Int == 250)
            #expect(object["dead_lettered"] as? Int == 3)
            #expect((object["feedback"] as? [String: Int])?["Unregistered"] == 7)
            #expect(object["sent"] as? Int == 1_010)
            #expect(object["finished"] as? Int == 1_260)
            #expect(object["retrying"] as? Int == 2)
            #expect(object["records"] as? Int == 2)
            #expect(object["state"] as? String == "running")
            #expect(((object["rate_per_second"] as? Double) ?? 0) > 0)

            let text = try await CommandRunner.salvo([
                "campaign", "status", "spring", "--brokers", cluster.brokers, "--campaigns-topic", topics.campaigns,
                "--control-topic",
                topics.control,
            ])
            #expect(text.status == 0, "stderr: \(text.stderr)")
            #expect(text.stdoutText.contains("finished      1260"), "\(text.stdoutText)")
            #expect(text.stdoutText.contains("2 worker record(s)"))

            let unknown = try await CommandRunner.salvo([
                "campaign", "status", "winter", "--brokers", cluster.brokers, "--campaigns-topic", topics.campaigns,
                "--control-topic",
                topics.control,
            ])
            #expect(unknown.status == 0)
            #expect(unknown.stdoutText.contains("no worker has reported progress for it yet"), "\(unknown.stdoutText)")
        }
    }

    @Test func aMissingControlTopicIsAClearFailureAndIsNotCreated() async throws {
        try await withCLITestCluster { cluster in
            let topic = cluster.uniqueName("cli-campaign-missing")
            let run = try await CommandRunner.salvo([
                "campaign", "cancel", "spring", "--brokers", cluster.brokers, "--control-topic", topic, "--timeout",
                "5s",
            ])
            #expect(run.status != 0)
            #expect(run.stderr.contains("salvo topics create"), "stderr: \(run.stderr)")
            #expect(
                try await cluster.admin.topic(named: topic) == nil,
                "producing must not auto-create an uncompacted control topic")
        }
    }
}

/// One simulated worker's ledger, shared with its publisher's collect closure as the worker core
/// would share it through its event loop.
private final class SimulatedWorker: Sendable {
    let ledger: Mutex<CampaignProgressLedger>
    init(_ worker: String) { ledger = Mutex(CampaignProgressLedger(worker: worker)) }
}

/// `status --watch` keeps reading: a worker's record written after it started shows up in a later
/// line, with a rate.
@Suite struct CampaignStatusWatchTests {
    @Test func watchPrintsNewProgressAsItArrives() async throws {
        try await withCLITestCluster { cluster in
            let prefix = cluster.uniqueName("cli-campaign-watch")
            let control = "\(prefix).control"
            let campaigns = "\(prefix).campaigns"
            cluster.adopt([control, campaigns])
            _ = try await cluster.admin.createTopics(
                [control, campaigns].map {
                    KafkaNewTopic(name: $0, partitions: 1, configs: ["cleanup.policy": "compact"])
                })
            var logger = Logger(label: "salvo.cli.test")
            logger.logLevel = .critical
            let producer = try KafkaProducer(
                configuration: KafkaProducerConfiguration(
                    client: KafkaClientConfiguration(bootstrapServers: cluster.brokers)), logger: logger)
            let worker = SimulatedWorker("worker-w")
            let publisher = CampaignProgressPublisher(topic: campaigns, producer: producer, logger: logger) { now in
                worker.ledger.withLock { $0.takeChangedRecords(now: now) }
            }
            let feeder = Task {
                // Counts arrive while `status --watch` runs (it is stopped after 6 s).
                for _ in 1...10 {
                    try await Task.sleep(for: .milliseconds(400))
                    worker.ledger.withLock { $0.count(.accepted, campaignID: "spring", times: 100, at: .now()) }
                    _ = await publisher.publishOnce()
                }
            }
            let watch = try await CommandRunner.salvo(
                [
                    "campaign", "status", "spring", "--brokers", cluster.brokers, "--campaigns-topic", campaigns,
                    "--control-topic", control,
                    "--watch", "--interval", "500ms",
                ], timeout: .seconds(6))
            try await feeder.value
            await producer.shutdown()
            let lines = watch.stdoutText.split(separator: "\n").filter { $0.contains("spring running") }
            #expect(lines.count >= 5, "\(watch.stdoutText)")
            let finished = lines.compactMap { line -> Int? in
                let words = line.split(separator: " ")
                return words.firstIndex(of: "finished").flatMap { Int(words[$0 + 1]) }
            }
            #expect(finished == finished.sorted(), "totals only grow: \(finished)")
            #expect(
                (finished.last ?? 0) > (finished.first ?? 0),
                "later lines show records written after the command started: \(finished)")
            #expect(
                lines.contains { $0.contains("/s") && !$0.contains("rate -") },
                "a line with a rate: \(watch.stdoutText)")
        }
    }
}
