import ArgumentParser
import Logging
import SalvoKafka

/// Creates the topics of docs/design.md's contracts. Safe to re-run: existing topics are reported,
/// not an error, so deployment scripts can call it unconditionally.
struct TopicsCreateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract:
            "Create salvo.jobs, salvo.jobs.priority, salvo.feedback, salvo.retry, salvo.dlq, salvo.outcomes, and the compacted salvo.control, salvo.campaigns and salvo.progress.",
        discussion: """
            Names are <prefix>.<role>; override single ones with --topic role=name \
            (roles: \(Role.allCases.map(\.rawValue).joined(separator: ", "))). Existing topics are \
            reported and left unchanged.
            """
    )

    /// The topics of the contract, in the order they are created and listed.
    enum Role: String, CaseIterable {
        case jobs, priority, feedback, retry, dlq, outcomes, control, campaigns, progress

        var suffix: String {
            switch self {
            case .jobs: "jobs"
            case .priority: "jobs.priority"
            case .feedback: "feedback"
            case .retry: "retry"
            case .dlq: "dlq"
            case .outcomes: "outcomes"
            case .control: "control"
            case .campaigns: "campaigns"
            case .progress: "progress"
            }
        }

        /// Campaign control and progress (docs/campaigns.md) and job checkpoints (docs/jobs.md)
        /// keep the latest record per key.
        var configs: [String: String] {
            switch self {
            case .control, .campaigns, .progress: ["cleanup.policy": "compact"]
            case .jobs, .priority, .feedback, .retry, .dlq, .outcomes: [:]
            }
        }
    }

    @Option(help: "Bootstrap brokers, host:port[,host:port...].")
    var brokers: String

    @Option(help: "Partitions per topic.")
    var partitions: Int = 4

    @Option(name: .customLong("replication-factor"), help: "Replicas per partition (3 in production).")
    var replicationFactor: Int = 1

    @Option(help: "Topic name prefix.")
    var prefix: String = "salvo"

    @Option(name: .customLong("topic"), help: "Override one name: role=name (repeatable).")
    var overrides: [String] = []

    @Option(help: "How long to wait for the cluster (e.g. 10s, 500ms).")
    var timeout: DurationArgument = .seconds(30)

    @Flag(help: "Show librdkafka's logs on stderr.")
    var verbose = false

    func validate() throws {
        guard partitions >= 1 else { throw ValidationError("--partitions must be at least 1") }
        guard replicationFactor >= 1 else { throw ValidationError("--replication-factor must be at least 1") }
        _ = try topicNames()
    }

    /// The topic name for every role, after overrides.
    func topicNames() throws -> [(role: Role, name: String)] {
        var names = Dictionary(uniqueKeysWithValues: Role.allCases.map { ($0, "\(prefix).\($0.suffix)") })
        for override in overrides {
            let parts = override.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let role = Role(rawValue: parts[0]), !parts[1].isEmpty else {
                throw ValidationError(
                    "--topic expects role=name with a role of \(Role.allCases.map(\.rawValue).joined(separator: ", ")), got '\(override)'"
                )
            }
            names[role] = parts[1]
        }
        return Role.allCases.map { ($0, names[$0] ?? "") }
    }

    func run() async throws {
        let names = try topicNames()
        let logger = CommandLogger.make(label: "salvo.topics", verbose: verbose)
        let admin = try KafkaAdmin(
            configuration: KafkaClientConfiguration(bootstrapServers: brokers, clientID: "salvo-topics"), logger: logger
        )
        let failures: [String]
        do {
            failures = try await create(names, admin: admin)
        } catch {
            await admin.close()
            throw error
        }
        await admin.close()
        guard failures.isEmpty else {
            throw CommandFailure("could not create \(failures.count) topic(s): \(failures.joined(separator: "; "))")
        }
    }

    /// Creates the topics, prints one line per topic, and returns the failures.
    private func create(_ roles: [(role: Role, name: String)], admin: KafkaAdmin) async throws -> [String] {
        let names = roles.map(\.name)
        let existing: [KafkaTopicMetadata]
        do {
            existing = try await admin.topics(timeout: timeout.duration)
        } catch {
            throw CommandFailure("cannot reach broker(s) \(brokers): \(error.message)")
        }
        let missing = names.filter { name in !existing.contains { $0.name == name } }
        let newTopics = roles.filter { missing.contains($0.name) }.map {
            KafkaNewTopic(
                name: $0.name, partitions: partitions, replicationFactor: replicationFactor, configs: $0.role.configs)
        }
        let results: [KafkaTopicCreationResult]
        do {
            results = try await admin.createTopics(newTopics, timeout: timeout.duration)
        } catch {
            throw CommandFailure("creating topics on \(brokers) failed: \(error.message)")
        }
        var failures: [String] = []
        for name in names {
            if let metadata = existing.first(where: { $0.name == name }) {
                print("exists   \(name) (\(metadata.partitionCount) partitions)")
                continue
            }
            switch results.first(where: { $0.name == name })?.outcome {
            case .created?:
                let compacted = roles.first { $0.name == name }?.role.configs.isEmpty == false ? ", compacted" : ""
                print(
                    "created  \(name) (\(partitions) partitions, replication factor \(replicationFactor)\(compacted))")
            case .alreadyExists?:
                print("exists   \(name)")
            case .failed(let error)?:
                print("failed   \(name): \(error.message)")
                failures.append("\(name): \(error.message)")
            case nil:
                print("failed   \(name): no answer from the cluster")
                failures.append("\(name): no answer from the cluster")
            }
        }
        return failures
    }
}
