import Foundation
import Logging
import SalvoKafka
import SalvoTestSupport
import Synchronization

/// Everything an end-to-end worker test stands on: unique topics on the test broker, TLS material
/// and a provider-token key from `salvo mock-apns --generate-tls`, the mock APNs as a child
/// process recording every acceptance, and worker configuration files pointing at both.
///
/// The worker and the mock are the real `salvo` binary, so these tests exercise exactly what an
/// operator runs: YAML loading, TLS with a CA generated at test time, JWT verification by the
/// mock, Kafka through librdkafka against a real broker.
final class WorkerStage: Sendable {
    static let app = "shop"
    static let bundleID = "com.example.shop"

    let cluster: CLITestCluster
    let directory: URL
    let prefix: String
    let groupID: String
    let mock: BackgroundProcess
    let mockPort: Int
    let mockAdminPort: Int
    let recordURL: URL
    let unprivileged: Bool
    private let tokenKey: (keyID: String, teamID: String, path: String)
    /// Every worker started on this stage, stopped with it.
    private let workers = Mutex<[BackgroundProcess]>([])

    var jobsTopic: String { "\(prefix).jobs" }
    var priorityTopic: String { "\(prefix).jobs.priority" }
    var feedbackTopic: String { "\(prefix).feedback" }
    var retryTopic: String { "\(prefix).retry" }
    var deadLetterTopic: String { "\(prefix).dlq" }

    /// Creates the topics and starts the mock with `scenarioYAML`.
    /// `unprivileged`: the mock and the workers run as the image runs them — uid 10001 with no
    /// capabilities — each under `strace -e setsockopt` writing `strace-<name>.txt` in ``directory``.
    /// `mockArguments`: more `salvo mock-apns` options (`--broadcast-listen`, say).
    init(
        cluster: CLITestCluster, scenarioYAML: String, partitions: Int = 4, unprivileged: Bool = false,
        mockArguments: [String] = []
    ) async throws {
        self.cluster = cluster
        self.unprivileged = unprivileged
        directory = try ExternalProcess.temporaryDirectory()
        let prefix = cluster.uniqueName("e2e")
        self.prefix = prefix
        groupID = "\(prefix)-workers"
        let names = [
            "jobs", "jobs.priority", "feedback", "retry", "dlq", "outcomes", "control", "campaigns", "progress",
        ]
        cluster.adopt(names.map { "\(prefix).\($0)" })
        if let embedded = cluster.embedded {
            // The mock cluster has no CreateTopics (nor compaction, which the workers warn about).
            for name in names { try await embedded.createTopic("\(prefix).\(name)", partitions: partitions) }
        } else {
            let topics = try await CommandRunner.salvo(
                [
                    "topics", "create", "--prefix", prefix, "--partitions", String(partitions), "--replication-factor",
                    "1",
                ] + cluster.connectionArguments)
            guard topics.status == 0 else { throw TestFailure("topics create failed: \(topics.stderr)") }
        }

        let tls = directory.appendingPathComponent("tls").path
        let generated = try await CommandRunner.salvo([
            "mock-apns", "--generate-tls", tls, "--bundle-id", Self.bundleID,
        ])
        guard generated.status == 0,
            let argument = generated.stdoutText.split(separator: " ").drop(while: { $0 != "--token-key" }).dropFirst()
                .first
        else {
            throw TestFailure("mock-apns --generate-tls failed: \(generated.stdoutText) \(generated.stderr)")
        }
        let parts = argument.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ":", maxSplits: 2).map(
            String.init)
        tokenKey = (parts[0], parts[1], parts[2])

        let scenario = directory.appendingPathComponent("scenario.yaml")
        try scenarioYAML.write(to: scenario, atomically: true, encoding: .utf8)
        recordURL = directory.appendingPathComponent("record.ndjson")
        if unprivileged { try Self.handOver(directory) }
        mock = try BackgroundProcess.salvo(
            "mock-apns",
            [
                "mock-apns", "--listen", "127.0.0.1:0", "--admin", "127.0.0.1:0",
                "--tls-cert", "\(tls)/server.pem", "--tls-key", "\(tls)/server-key.pem",
                "--token-key", "\(tokenKey.keyID):\(tokenKey.teamID):\(tokenKey.path)",
                "--scenario", scenario.path, "--record", recordURL.path, "--log-level", "warning",
            ] + mockArguments, launcher: Self.launcher(unprivileged, name: "mock-apns", in: directory))
        do {
            mockPort = try Self.port(in: try await mock.waitForOutput(containing: "listening on"))
            mockAdminPort = try Self.port(in: try await mock.waitForOutput(containing: "admin on"))
        } catch {
            await mock.stop()
            throw error
        }
    }

    /// The uid the Dockerfile's `USER` and the Deployment's `runAsUser` name.
    static let unprivilegedUID = 10_001

    /// Everything in the stage's folder belongs to the unprivileged user, which the worker and the
    /// mock must read (keys, certificates, configuration) and write (the record file).
    private static func handOver(_ directory: URL) throws {
        let result = Process()
        result.executableURL = URL(fileURLWithPath: "/bin/chown")
        result.arguments = ["-R", "\(unprivilegedUID):\(unprivilegedUID)", directory.path]
        try result.run()
        result.waitUntilExit()
        guard result.terminationStatus == 0 else { throw TestFailure("chown of \(directory.path) failed") }
    }

    static func launcher(_ unprivileged: Bool, name: String, in directory: URL) -> [String] {
        guard unprivileged else { return [] }
        let uid = String(unprivilegedUID)
        return [
            "/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "--inh-caps=-all",
            "--bounding-set=-all",
            "/usr/bin/strace", "-f", "-qq", "-e", "trace=setsockopt", "-o",
            directory.appendingPathComponent("strace-\(name).txt").path,
        ]
    }

    private static func port(in line: String) throws -> Int {
        guard let match = line.firstMatch(of: /127\.0\.0\.1:(\d+)/), let port = Int(match.1) else {
            throw TestFailure("no 127.0.0.1:PORT in \"\(line)\"")
        }
        return port
    }

    /// A worker configuration for this stage; `extra` is appended (YAML top-level keys).
    /// `brokers` replaces the test broker (a closed port, say); `logLevel` is the worker's.
    /// `kafka` adds lines to the `kafka:` block (`start_from: latest`); `topics` replaces the
    /// value of `control` or `progress` (another name, or `null`); `groupID` the stage's group;
    /// `ratePerSecond` the app's `rate_limit.per_second` (none by default).
    func writeWorkerConfiguration(
        name: String = "worker.yaml", brokers: String? = nil, logLevel: String = "warning", extra: String = "",
        kafka: [String] = [], topics: [String: String] = [:], groupID: String? = nil, ratePerSecond: Int? = nil
    ) throws -> URL {
        let rateLimit = ratePerSecond.map { "rate_limit:\n      per_second: \($0)\n    " } ?? ""
        let kafkaLines = ((brokers == nil ? cluster.workerKafkaLines : []) + kafka).map { "\n  \($0)" }.joined()
        let yaml = """
            kafka:
              brokers: ["\(brokers ?? cluster.brokers)"]
              client_id: salvo-e2e
              consumer_properties:
                session.timeout.ms: "6000"
                heartbeat.interval.ms: "500"\(kafkaLines)
            group_id: \(groupID ?? self.groupID)
            topics:
              jobs: \(jobsTopic)
              priority: \(priorityTopic)
              retry: \(retryTopic)
              feedback: \(feedbackTopic)
              dead_letter: \(deadLetterTopic)
              control: \(topics["control"] ?? "\(prefix).control")
              campaigns: \(prefix).campaigns
              progress: \(topics["progress"] ?? "\(prefix).progress")
            apps:
              \(Self.app):
                bundle_id: \(Self.bundleID)
                credential:
                  token:
                    key_file: \(tokenKey.path)
                    key_id: \(tokenKey.keyID)
                    team_id: \(tokenKey.teamID)
                environments:
                  - host: 127.0.0.1
                    port: \(mockPort)
                    behaves_as: production
                    ca_file: \(directory.appendingPathComponent("tls").path)/ca.pem
                    tls_server_name: localhost
                \(rateLimit)pool:
                  connections: 2
                  request_timeout: 10s
            operations:
              listen: 127.0.0.1:0
            drain_deadline: 15s
            log_level: \(logLevel)
            \(extra)
            """
        let url = directory.appendingPathComponent(name)
        try yaml.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    func startWorker(_ configuration: URL, name: String = "worker") throws -> BackgroundProcess {
        if unprivileged { try Self.handOver(directory) }
        let worker = try BackgroundProcess.salvo(
            name, ["worker", "--config", configuration.path],
            launcher: Self.launcher(unprivileged, name: name, in: directory))
        workers.withLock { $0.append(worker) }
        return worker
    }

    /// Sends NDJSON lines to `topic` with `salvo enqueue`.
    func enqueue(_ lines: [String], to topic: String) async throws {
        guard !lines.isEmpty else { return }
        let file = directory.appendingPathComponent("jobs-\(UUID().uuidString).ndjson")
        try CampaignFixture.write(lines, to: file)
        let result = try await CommandRunner.salvo(
            ["enqueue", "--topic", topic, "--key-field", "id", file.path] + cluster.connectionArguments,
            timeout: .seconds(120))
        guard result.status == 0 else { throw TestFailure("enqueue to \(topic) failed: \(result.stderr)") }
    }

    /// The record file as the mock has flushed it so far (it flushes every second).
    func record() throws -> MockRecord { try MockRecord(contentsOf: recordURL) }

    /// Waits until the mock has accepted every token of `expected`, or `timeout` passes; returns
    /// the last record read either way.
    func waitForDeliveries(of expected: Set<String>, timeout: Duration) async throws -> MockRecord {
        let deadline = ContinuousClock.now + timeout
        var record = try self.record()
        while ContinuousClock.now < deadline {
            if expected.allSatisfy({ record.acceptedCount[$0] != nil }) { return record }
            try await Task.sleep(for: .milliseconds(500))
            record = try self.record()
        }
        return record
    }

    /// Every message of `topic`: key and value.
    func messages(of topic: String) async throws -> [(key: String, value: String)] {
        let result = try await cluster.read(topic, format: "%k\t%s\n")
        guard result.status == 0 else { throw TestFailure("kcat could not read \(topic): \(result.stderr)") }
        return result.stdoutText.split(separator: "\n", omittingEmptySubsequences: true).map { line in
            let parts = line.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }
    }

    /// Per partition of `topic`: how many messages it holds (offsets start at 0 on a new topic).
    func messageCounts(of topic: String) async throws -> [Int32: Int64] {
        let result = try await cluster.read(topic, format: "%p\n")
        guard result.status == 0 else { throw TestFailure("kcat could not read \(topic): \(result.stderr)") }
        var counts: [Int32: Int64] = [:]
        for line in result.stdoutText.split(separator: "\n") { counts[Int32(line)!, default: 0] += 1 }
        return counts
    }

    /// Whether `group` has committed, on every partition of `topic` holding messages, the offset
    /// after its last message.
    func uncommittedPartitions(of topic: String, group: String) async throws -> [String] {
        let counts = try await messageCounts(of: topic)
        var logger = Logger(label: "salvo.e2e.offsets")
        logger.logLevel = .critical
        let partitions = counts.keys.sorted().map { KafkaTopicPartition(topic: topic, partition: $0) }
        // Without joining the group: a consumer would start a rebalance of the workers at each look.
        let committed = try await KafkaGroupOffsets.committed(
            group: group, partitions: partitions, client: cluster.clientConfiguration,
            logger: logger)
        return partitions.compactMap { partition in
            let have = committed[partition] ?? nil
            let want = counts[partition.partition]!
            return have == want
                ? nil : "\(partition): committed \(have.map(String.init) ?? "nothing"), messages \(want)"
        }
    }

    /// Stops every worker still running, then the mock, and removes the files.
    func stop() async {
        for worker in workers.withLock({ $0 }) { await worker.stop() }
        await mock.stop()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Runs `body` on a fresh stage of the test broker (or, `embedded`, of librdkafka's mock cluster
/// in this process), and always stops its workers and mock.
func withWorkerStage(
    scenarioYAML: String, partitions: Int = 4, unprivileged: Bool = false, mockArguments: [String] = [],
    embedded: Bool = false, _ body: (WorkerStage) async throws -> Void
) async throws {
    let withCluster = embedded ? withEmbeddedTestCluster : withCLITestCluster
    try await withCluster { cluster in
        let stage = try await WorkerStage(
            cluster: cluster, scenarioYAML: scenarioYAML, partitions: partitions, unprivileged: unprivileged,
            mockArguments: mockArguments)
        do {
            try await body(stage)
        } catch {
            await stage.stop()
            throw error
        }
        await stage.stop()
    }
}
