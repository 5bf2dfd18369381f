import ArgumentParser
import Logging
import SalvoKafka
import SalvoWorker

/// Compares the cluster's topics with what each role needs (``WorkerTopicRequirement``), the
/// rules the worker applies at start: one line per problem, exit 78 when a topic is missing or
/// wrong, 69 when the broker cannot be reached or does not report a topic's settings (they are
/// then not verified, and the check does not pass).
struct TopicsCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract:
            "Report every Salvo topic that is missing or has the wrong settings (compaction, partitions, replication).",
        discussion: """
            Checks the names salvo topics create makes (same --prefix and --topic). Exit 0: all \
            present and right; 78: something is missing or wrong; 69: the broker is unreachable or \
            did not report a topic's settings.
            """
    )

    @OptionGroup var kafka: KafkaConnectionOptions

    @OptionGroup var topics: TopicsOptions

    @Option(help: "Fewest partitions of the lane topics (jobs, jobs.priority, retry): the most worker replicas.")
    var partitions: Int = WorkerTopicRequirement.scaledPartitions

    @Option(
        name: .customLong("replication-factor"), help: "Fewest replicas per partition (1 on a single-broker cluster).")
    var replicationFactor: Int = WorkerTopicRequirement.replicationFactor

    func validate() throws {
        guard partitions >= 1 else { throw ValidationError("--partitions must be at least 1") }
        guard replicationFactor >= 1 else { throw ValidationError("--replication-factor must be at least 1") }
    }

    func run() async throws {
        let requirements = try topics.requirements()
        let client = try kafka.client(clientID: "salvo-topics", verbose: topics.verbose)
        let logger = CommandLogger.make(label: "salvo.topics", verbose: topics.verbose)
        let admin = try KafkaAdmin(configuration: client, logger: logger)
        let findings: [WorkerTopicFinding]
        do {
            findings = try await WorkerTopicCheck.findings(
                requirements, admin: admin, minimumPartitions: partitions,
                minimumReplicationFactor: replicationFactor, timeout: topics.timeout.duration)
        } catch {
            await admin.close()
            throw CommandFailure(
                "cannot reach broker(s) \(client.brokerList): \(error.message)", exit: CommandExit.status(of: error))
        }
        await admin.close()
        for requirement in requirements {
            let own = findings.filter { $0.requirement == requirement }
            if own.isEmpty { print("ok       \(requirement.name)") }
            for finding in own { print("\(finding.isUnverified ? "unknown" : "wrong  ")  \(finding)") }
        }
        let wrong = findings.filter { !$0.isUnverified }
        let unverified = Set(findings.filter(\.isUnverified).map(\.requirement.name))
        if !wrong.isEmpty {
            throw CommandFailure(
                "\(wrong.count) problem(s) with \(Set(wrong.map(\.requirement.name)).count) topic(s) on \(client.brokerList)",
                exit: .configuration)
        }
        if !unverified.isEmpty {
            throw CommandFailure(
                "\(client.brokerList) did not report the settings of \(unverified.sorted().joined(separator: ", ")): compaction not verified",
                exit: .unavailable)
        }
        print("all \(requirements.count) topics as required")
    }
}
