import Foundation
import SalvoMockAPNs
import SalvoTestSupport
import Testing

/// The worker and every command around it on a cluster that requires authentication: the test
/// broker behind the SASL front end (SCRAM, optionally over TLS), so librdkafka's real SASL and TLS
/// client code runs in the `salvo` binary. Every command is given only `--kafka-config`, the
/// password in a file its `properties_files` names; the worker reads the same block.
@Suite("secured cluster end to end", .serialized)
struct SecuredClusterTests {
    static let user = "salvo-ops"
    static let password = "pw-\(UInt64.random(in: 1...UInt64.max))"

    @Test(
        "SASL_PLAINTEXT (SCRAM-SHA-512): topics create, enqueue, the worker, campaign cancel and status, loadtest",
        .timeLimit(.minutes(5)))
    func everyCommandOverSCRAM() async throws {
        try await Self.withSecuredStage(mechanism: .scramSHA512, tls: false) { stage, broker in
            try await Self.deliverCancelAndLoad(stage, broker: broker)
        }
    }

    @Test(
        "SASL_SSL (SCRAM-SHA-256 over TLS, the test CA): topics create, enqueue, the worker, campaign cancel and status, loadtest",
        .timeLimit(.minutes(5)))
    func everyCommandOverSCRAMAndTLS() async throws {
        try await Self.withSecuredStage(mechanism: .scramSHA256, tls: true) { stage, broker in
            try await Self.deliverCancelAndLoad(stage, broker: broker)
        }
    }

    /// Per-user pushes through a worker, a campaign cancelled and its status read, and a short
    /// load test, all against the secured stage.
    static func deliverCancelAndLoad(_ stage: WorkerStage, broker: AuthenticatingTestBroker) async throws {
        let worker = try stage.startWorker(try stage.writeWorkerConfiguration())
        var fixture = CampaignFixture(seed: 7)
        fixture.addPerUser(id: "secured", count: 50, app: WorkerStage.app, fate: MockTokenFate())
        try await stage.enqueue(fixture.perUserLines, to: stage.priorityTopic)
        let record = try await stage.waitForDeliveries(of: fixture.expected.delivered, timeout: .seconds(90))
        let missing = fixture.expected.delivered.filter { record.acceptedCount[$0] == nil }
        #expect(missing.isEmpty, "\(missing.count) not delivered; worker: \(worker.stderr.suffix(2_000))")

        let cancel = try await CommandRunner.salvo(
            ["campaign", "cancel", "secured-spring", "--control-topic", "\(stage.prefix).control", "--by", "test"]
                + stage.cluster.connectionArguments)
        #expect(cancel.status == 0, "\(cancel.stderr)")
        #expect(cancel.stdoutText.contains("cancel secured-spring: written to \(stage.prefix).control"))
        let status = try await CommandRunner.salvo(
            [
                "campaign", "status", "secured-spring", "--control-topic", "\(stage.prefix).control",
                "--campaigns-topic", "\(stage.prefix).campaigns", "--json",
            ] + stage.cluster.connectionArguments)
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdoutText.contains("cancel"), "\(status.stdoutText)")

        let scenario = try stage.loadScenario(
            name: "secured",
            body: """
                phases:
                  - duration_seconds: 3
                    rate: 20
                    campaign: {tokens_per_job: 100, every_seconds: 2}
                objectives:
                  min_delivered_per_second: 1
                  max_duplicate_deliveries: 0
                """)
        let (load, _) = try await stage.runLoadTest(scenario, name: "secured")
        #expect(load.status == 0, "\(load.stdoutText.suffix(2_000))\n\(load.stderr.suffix(2_000))")
        #expect(load.stdoutText.contains("RESULT: PASS"))

        for output in [
            cancel.stdoutText + cancel.stderr, status.stdoutText + status.stderr, load.stderr, worker.stderr,
        ] {
            #expect(!output.contains(password), "a command printed the SASL password")
        }
        let statistics = broker.frontEnd.statistics
        #expect(statistics.authenticationFailures == 0, "\(statistics)")
        #expect(statistics.authenticatedConnections >= 5, "\(statistics)")
        worker.signal(SIGTERM)
        #expect(await worker.waitForExit(timeout: .seconds(30)) == 0, "\(worker.stderr.suffix(2_000))")
    }

    @Test(
        "wrong or missing credentials, over SASL_PLAINTEXT and SASL_SSL: every command exits 78 with one line naming the broker and the SASL failure, no secret printed",
        .timeLimit(.minutes(5)), arguments: [false, true])
    func refusedCredentials(tls: Bool) async throws {
        try await Self.withSecuredStage(mechanism: .scramSHA512, tls: tls) { stage, broker in
            let wrong = "not-\(Self.password)"
            let secret = stage.directory.appendingPathComponent("wrong-password")
            try wrong.write(to: secret, atomically: true, encoding: .utf8)
            // The cluster's own settings (protocol, mechanism, user, CA), the password left out.
            let settings = stage.cluster.properties.filter { $0.key != "sasl.password" }.sorted { $0.key < $1.key }
                .map { "\($0.key): \"\($0.value)\"" }.joined(separator: ", ")
            let properties = "properties: {\(settings)}"
            let wrongConfig = stage.directory.appendingPathComponent("wrong.yaml")
            try """
            kafka:
              brokers: ["\(broker.address)"]
              \(properties)
              properties_files: {sasl.password: \(secret.path)}
            """.write(to: wrongConfig, atomically: true, encoding: .utf8)
            // SASL asked for, but the password left out: librdkafka refuses before connecting.
            let noCredentials = stage.directory.appendingPathComponent("none.yaml")
            try """
            kafka:
              brokers: ["\(broker.address)"]
              \(properties)
            """.write(to: noCredentials, atomically: true, encoding: .utf8)
            let jobs = stage.directory.appendingPathComponent("refused.ndjson")
            var fixture = CampaignFixture(seed: 8)
            fixture.addPerUser(id: "refused", count: 1, app: WorkerStage.app, fate: MockTokenFate())
            try CampaignFixture.write(fixture.perUserLines, to: jobs)

            for config in [wrongConfig, noCredentials] {
                let connection = ["--kafka-config", config.path, "--timeout", "10s"]
                let commands: [[String]] = [
                    ["topics", "create", "--prefix", "\(stage.prefix)-refused", "--replication-factor", "1"],
                    ["enqueue", "--topic", stage.priorityTopic, jobs.path],
                    ["campaign", "cancel", "refused", "--control-topic", "\(stage.prefix).control"],
                    ["campaign", "status", "refused", "--control-topic", "\(stage.prefix).control"],
                ]
                for command in commands {
                    let run = try await CommandRunner.salvo(command + connection, timeout: .seconds(60))
                    let name = command.prefix(2).joined(separator: " ")
                    #expect(run.status == 78, "\(name) with \(config.lastPathComponent): \(run.status) \(run.stderr)")
                    let lines = run.stderr.split(separator: "\n").filter { $0.hasPrefix("Error:") }
                    #expect(lines.count == 1, "\(name): one error line, got: \(run.stderr)")
                    let line = lines.first.map(String.init) ?? ""
                    #expect(line.contains(broker.address), "\(name) names the broker: \(line)")
                    #expect(
                        line.contains("SASL authentication error") || line.contains("sasl.password must be set"),
                        "\(name) says why: \(line)")
                    #expect(!(run.stdoutText + run.stderr).contains(wrong), "\(name) printed the password")
                }
            }

            let worker = try stage.startWorker(
                try stage.writeWorkerConfiguration(
                    name: "wrong-worker.yaml", brokers: broker.address,
                    kafka: [properties, "properties_files: {sasl.password: \(secret.path)}"]),
                name: "refused-worker")
            let status = await worker.waitForExit(timeout: .seconds(60))
            #expect(status == 78, "the worker refused by the cluster exits 78: \(worker.stderr.suffix(2_000))")
            #expect(worker.stderr.contains(broker.address), "\(worker.stderr.suffix(2_000))")
            #expect(!worker.stderr.contains(wrong))
            #expect(broker.frontEnd.statistics.authenticationFailures > 0)
        }
    }

    @Test(
        "the RUNBOOK's \"Stop a campaign now\" runs as written against a broker that requires SCRAM over TLS",
        .timeLimit(.minutes(3)))
    func runbookStopACampaignNow() async throws {
        let block = try Self.runbookBlock(section: "## Stop a campaign now")
        #expect(block.contains("--kafka-config $KAFKA_CONFIG"), "\(block)")
        try await Self.withSecuredCluster(mechanism: .scramSHA512, tls: true) { _, cluster in
            // The broker is this test's own: the runbook's default topic names are free.
            let topics = try await CommandRunner.salvo(
                ["topics", "create", "--partitions", "1", "--replication-factor", "1"] + cluster.connectionArguments
            )
            #expect(topics.status == 0, "\(topics.stderr)")
            cluster.adopt(["salvo.control", "salvo.campaigns"])

            let salvo = try ExternalProcess.salvoExecutable().deletingLastPathComponent().path
            let oncall = try BackgroundProcess(
                name: "runbook", executable: URL(fileURLWithPath: "/bin/bash"), arguments: ["-eu", "-c", block],
                environment: [
                    "KAFKA_CONFIG": cluster.connectionArguments[1], "USER": "oncall",
                    "PATH": salvo + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? ""),
                ])
            try await withCleanUp(oncall, cleanUp: { await $0.stop() }) { oncall in
                let written = try await oncall.waitForOutput(
                    containing: "cancel spring-sale: written to salvo.control", timeout: .seconds(60))
                #expect(written.contains("by oncall"), "\(written)")
                // The status line keeps watching until interrupted, as the runbook says.
                let watching = try await oncall.waitForOutput(
                    containing: "spring-sale cancelled", timeout: .seconds(60))
                #expect(!watching.isEmpty)
                #expect(!(oncall.stdout + oncall.stderr).contains(Self.password))
            }
            let control = try await cluster.read("salvo.control", format: "%k %s\n")
            #expect(control.stdoutText.contains("spring-sale"), "\(control.stdoutText) \(control.stderr)")
            #expect(control.stdoutText.contains("wrong audience"))
        }
    }

    /// The first ```sh block of a RUNBOOK section.
    static func runbookBlock(section: String) throws -> String {
        let runbook = try RepositoryFiles.text("ops/RUNBOOK.md")
        guard let start = runbook.range(of: "\n\(section)\n") else {
            throw TestFailure("ops/RUNBOOK.md has no section \(section)")
        }
        let lines = runbook[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false)
        guard let open = lines.firstIndex(where: { $0.hasPrefix("```sh") }),
            let close = lines[(open + 1)...].firstIndex(where: { $0.hasPrefix("```") })
        else {
            throw TestFailure("the section \(section) of ops/RUNBOOK.md holds no ```sh block")
        }
        return lines[(open + 1)..<close].joined(separator: "\n")
    }

    /// A worker stage on ``withSecuredCluster(mechanism:tls:_:)``; everything is stopped after
    /// `body`, pass or fail.
    static func withSecuredStage(
        mechanism: KafkaSASLMechanism, tls: Bool,
        _ body: (WorkerStage, AuthenticatingTestBroker) async throws -> Void
    ) async throws {
        try await withSecuredCluster(mechanism: mechanism, tls: tls) { broker, cluster in
            let stage = try await WorkerStage(cluster: cluster, scenarioYAML: "name: secured\n", partitions: 2)
            try await withCleanUp(stage, cleanUp: { await $0.stop() }) { stage in
                try await body(stage, broker)
            }
        }
    }

    /// A broker of its own that requires `mechanism` (and TLS with a test CA), with one user, and
    /// the test cluster on it; both are stopped after `body`, pass or fail.
    static func withSecuredCluster(
        mechanism: KafkaSASLMechanism, tls: Bool,
        _ body: (AuthenticatingTestBroker, CLITestCluster) async throws -> Void
    ) async throws {
        let pki = try TestPKI()
        defer { pki.remove() }
        let broker = try await AuthenticatingTestBroker.start(
            mechanisms: [mechanism], users: [user: password], tls: tls ? KafkaSASLFrontEnd.TLS(pki: pki) : nil)
        try await withCleanUp(broker, cleanUp: { await $0.stop() }) { broker in
            var properties = broker.frontEnd.clientProperties(
                mechanism: mechanism, user: user, password: password, caLocation: tls ? pki.caCertificatePath : nil)
            properties["sasl.password"] = nil
            let cluster = try CLITestCluster(
                secured: broker.address, properties: properties, secrets: ["sasl.password": password],
                directory: pki.directory)
            try await withCleanUp(cluster, cleanUp: { await $0.cleanUp() }) { cluster in
                try await body(broker, cluster)
            }
        }
    }
}
