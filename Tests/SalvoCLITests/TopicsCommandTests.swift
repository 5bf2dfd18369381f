import Foundation
import SalvoKafka
import SalvoTestSupport
import Testing

@Suite struct TopicsCommandTests {
    static let roles = [
        "jobs", "jobs.priority", "feedback", "retry", "dlq", "outcomes", "control", "campaigns", "progress",
    ]
    static let compacted: Set<String> = ["feedback", "control", "campaigns", "progress"]

    @Test func createsEveryTopicAndIsIdempotent() async throws {
        try await withCLITestCluster { cluster in
            let prefix = cluster.uniqueName("cli-topics")
            let names = Self.roles.map { "\(prefix).\($0)" }
            cluster.adopt(names)
            let arguments = [
                "topics", "create", "--brokers", cluster.brokers, "--prefix", prefix, "--partitions", "2",
                "--replication-factor", "1", "--retention", "48h",
            ]

            let first = try await CommandRunner.salvo(arguments)
            #expect(first.status == 0, "stderr: \(first.stderr)")
            for name in names {
                #expect(first.stdoutText.contains("created  \(name) "), "\(name) in: \(first.stdoutText)")
            }
            let topics = try await cluster.admin.topics()
            for name in names {
                #expect(topics.first { $0.name == name }?.partitionCount == 2, "\(name) exists with 2 partitions")
            }

            let configs = try await cluster.admin.topicConfigs(names)
            for role in Self.roles {
                let settings = try configs["\(prefix).\(role)"]?.get() ?? [:]
                if Self.compacted.contains(role) {
                    #expect(settings["cleanup.policy"] == "compact", "\(role) compacted: \(settings)")
                    #expect(
                        first.stdoutText.contains(
                            "created  \(prefix).\(role) (2 partitions, replication factor 1, compacted)"))
                } else {
                    #expect(settings["cleanup.policy"] != "compact", "\(role) deletes by age: \(settings)")
                    #expect(settings["retention.ms"] == String(48 * 3_600_000), "\(role) retention: \(settings)")
                }
            }

            let check = try await CommandRunner.salvo([
                "topics", "check", "--brokers", cluster.brokers, "--prefix", prefix, "--partitions", "2",
                "--replication-factor", "1",
            ])
            #expect(check.status == 0, "what create makes passes check: \(check.stdoutText) \(check.stderr)")

            let second = try await CommandRunner.salvo(arguments)
            #expect(second.status == 0, "re-running is not an error: \(second.stderr)")
            for name in names {
                #expect(
                    second.stdoutText.contains("exists   \(name) (2 partitions)"), "\(name) in: \(second.stdoutText)")
            }
        }
    }

    @Test func namesCanBeOverridden() async throws {
        try await withCLITestCluster { cluster in
            let prefix = cluster.uniqueName("cli-override")
            let dlq = cluster.uniqueName("cli-custom-dlq")
            let names = Self.roles.filter { $0 != "dlq" }.map { "\(prefix).\($0)" } + [dlq]
            cluster.adopt(names)
            let run = try await CommandRunner.salvo([
                "topics", "create", "--brokers", cluster.brokers, "--prefix", prefix, "--topic", "dlq=\(dlq)",
                "--partitions", "1", "--replication-factor", "1",
            ])
            #expect(run.status == 0, "stderr: \(run.stderr)")
            #expect(run.stdoutText.contains("created  \(dlq) "))
            #expect(!run.stdoutText.contains("\(prefix).dlq"))
            #expect(try await cluster.admin.topic(named: dlq) != nil)
        }
    }

    @Test func unreachableBrokerIsAClearFailure() async throws {
        let port = try ClosedPort.find()
        let run = try await CommandRunner.salvo([
            "topics", "create", "--brokers", "127.0.0.1:\(port)", "--timeout", "2s",
        ])
        #expect(run.status != 0)
        #expect(run.elapsed < .seconds(15))
        #expect(run.stderr.contains("cannot reach broker(s)"), "stderr: \(run.stderr)")
    }

    @Test func badOverrideIsAUsageError() async throws {
        let run = try await CommandRunner.salvo(["topics", "create", "--brokers", "127.0.0.1:1", "--topic", "nonsense"])
        #expect(run.status != 0)
        #expect(run.stderr.contains("role=name"))
    }
}

/// `--dry-run` and `salvo topics check`.
@Suite struct TopicsCheckCommandTests {
    @Test func dryRunPrintsTheCommandsAndConnectsToNothing() async throws {
        let port = try ClosedPort.find()
        let run = try await CommandRunner.salvo([
            "topics", "create", "--dry-run", "--brokers", "127.0.0.1:\(port)", "--prefix", "dry", "--retention", "72h",
        ])
        #expect(run.status == 0, "nothing to reach: \(run.stderr)")
        #expect(run.elapsed < .seconds(5))
        let lines = run.stdoutText.split(separator: "\n")
        #expect(lines.count == TopicsCommandTests.roles.count)
        for role in TopicsCommandTests.roles {
            let line = lines.first { $0.contains("--topic dry.\(role) ") } ?? ""
            #expect(
                line.hasPrefix("kafka-topics.sh --bootstrap-server 127.0.0.1:\(port) --create --if-not-exists"),
                "\(line)")
            #expect(line.contains("--partitions 12 --replication-factor 3"), "production defaults: \(line)")
            #expect(
                line.contains("--config cleanup.policy=compact") == TopicsCommandTests.compacted.contains(role),
                "\(line)")
            #expect(line.contains("retention.ms=259200000") != TopicsCommandTests.compacted.contains(role), "\(line)")
        }
    }

    @Test func dryRunOfASecuredClusterNamesItsClientProperties() async throws {
        let directory = try ExternalProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("kafka.yaml")
        try """
        kafka:
          brokers: ["kafka-1.example:9093"]
          properties:
            security.protocol: SASL_SSL
            sasl.mechanism: SCRAM-SHA-512
            sasl.username: salvo
        """.write(to: file, atomically: true, encoding: .utf8)
        let run = try await CommandRunner.salvo(["topics", "create", "--dry-run", "--kafka-config", file.path])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdoutText.split(separator: "\n")
        #expect(
            lines.first
                == "# client.properties for --command-config: sasl.mechanism=SCRAM-SHA-512 sasl.username=salvo security.protocol=SASL_SSL"
        )
        #expect(
            lines.dropFirst().allSatisfy {
                $0.hasPrefix(
                    "kafka-topics.sh --bootstrap-server kafka-1.example:9093 --command-config client.properties --create"
                )
            }, "\(run.stdoutText)")
    }

    @Test func checkFindsEveryWrongSetting() async throws {
        try await withCLITestCluster { cluster in
            let prefix = cluster.uniqueName("cli-check")
            let progress = cluster.uniqueName("cli-check-deleting-progress")
            let names = TopicsCommandTests.roles.filter { $0 != "progress" && $0 != "campaigns" }.map {
                "\(prefix).\($0)"
            }
            cluster.adopt(names + [progress])
            let create = try await CommandRunner.salvo([
                "topics", "create", "--brokers", cluster.brokers, "--prefix", prefix, "--partitions", "2",
                "--replication-factor", "1",
            ])
            #expect(create.status == 0, "\(create.stderr)")
            // By hand: a progress topic that deletes by age, under a name of its own; no campaigns topic.
            cluster.adopt(["\(prefix).progress", "\(prefix).campaigns"])
            try await cluster.admin.deleteTopics(["\(prefix).campaigns"])
            _ = try await cluster.admin.createTopics([
                KafkaNewTopic(name: progress, partitions: 1, configs: ["cleanup.policy": "delete"])
            ])

            let run = try await CommandRunner.salvo([
                "topics", "check", "--brokers", cluster.brokers, "--prefix", prefix, "--topic", "progress=\(progress)",
                "--partitions", "4", "--replication-factor", "1",
            ])
            #expect(run.status == 78, "stdout: \(run.stdoutText) stderr: \(run.stderr)")
            let out = run.stdoutText
            #expect(
                out.contains("topic \(progress) (topics.progress) has cleanup.policy=delete, needs compact"), "\(out)")
            #expect(out.contains("topic \(prefix).campaigns (topics.campaigns) does not exist"), "\(out)")
            for lane in ["jobs", "jobs.priority", "retry"] {
                #expect(
                    out.contains("topic \(prefix).\(lane) (") && out.contains("has 2 partitions, needs at least 4"),
                    "\(out)")
            }
            #expect(out.contains("ok       \(prefix).control"), "\(out)")
            #expect(out.contains("ok       \(prefix).feedback"), "\(out)")

            let replicas = try await CommandRunner.salvo([
                "topics", "check", "--brokers", cluster.brokers, "--prefix", prefix, "--topic", "progress=\(progress)",
                "--partitions", "2",
            ])
            #expect(replicas.status == 78)
            #expect(replicas.stdoutText.contains("has replication factor 1, needs 3"), "\(replicas.stdoutText)")
        }
    }

    @Test func checkOfAnUnreachableBrokerExits69() async throws {
        let port = try ClosedPort.find()
        let run = try await CommandRunner.salvo([
            "topics", "check", "--brokers", "127.0.0.1:\(port)", "--timeout", "2s",
        ])
        #expect(run.status == 69, "\(run.stderr)")
        #expect(run.stderr.contains("cannot reach broker(s) 127.0.0.1:\(port)"), "stderr: \(run.stderr)")
    }
}
