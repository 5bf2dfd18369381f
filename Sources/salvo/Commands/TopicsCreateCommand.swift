import ArgumentParser
import Logging
import SalvoKafka
import SalvoWorker

/// Creates the topics of docs/design.md's contracts with the settings each role needs
/// (``WorkerTopicRequirement``). Safe to re-run: existing topics are reported, not an error, so
/// deployment scripts can call it unconditionally; `salvo topics check` says whether they are right.
struct TopicsCreateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract:
            "Create salvo.jobs, salvo.jobs.priority, salvo.retry, salvo.dlq, salvo.outcomes, and the compacted salvo.feedback, salvo.control, salvo.campaigns and salvo.progress.",
        discussion: """
            Names are <prefix>.<role>; override single ones with --topic role=name. Existing topics \
            are reported and left unchanged (salvo topics check compares them with what they need). \
            The defaults are for production: \(WorkerTopicRequirement.scaledPartitions) partitions, \
            as many as ops/kubernetes scales workers to, and replication factor \
            \(WorkerTopicRequirement.replicationFactor); a single-broker cluster needs \
            --replication-factor 1. With --dry-run, prints the kafka-topics.sh commands that do the \
            same and connects to nothing.
            """
    )

    @OptionGroup var kafka: KafkaConnectionOptions

    @OptionGroup var topics: TopicsOptions

    @Option(help: "Partitions per topic (at least as many as worker replicas).")
    var partitions: Int = WorkerTopicRequirement.scaledPartitions

    @Option(name: .customLong("replication-factor"), help: "Replicas per partition (1 on a single-broker cluster).")
    var replicationFactor: Int = WorkerTopicRequirement.replicationFactor

    @Option(
        help: ArgumentHelp(
            "retention.ms of the topics that delete by age (jobs, jobs.priority, retry, dlq, outcomes), e.g. 168h. Default: the broker's (Kafka: 7 days). Compacted topics keep the latest record per key.",
            valueName: "duration"))
    var retention: TopicRetention?

    @Flag(name: .customLong("dry-run"), help: "Print the equivalent kafka-topics.sh commands; connect to nothing.")
    var dryRun = false

    func validate() throws {
        guard partitions >= 1 else { throw ValidationError("--partitions must be at least 1") }
        guard replicationFactor >= 1 else { throw ValidationError("--replication-factor must be at least 1") }
    }

    /// What each topic is created with.
    func newTopics() throws -> [(requirement: WorkerTopicRequirement, topic: KafkaNewTopic)] {
        try topics.requirements().map { requirement in
            var configs = requirement.requiredConfigs
            if let retention, !requirement.role.isCompacted { configs["retention.ms"] = String(retention.milliseconds) }
            return (
                requirement,
                KafkaNewTopic(
                    name: requirement.name, partitions: partitions, replicationFactor: replicationFactor,
                    configs: configs)
            )
        }
    }

    func run() async throws {
        let planned = try newTopics()
        if dryRun {
            let client = try kafka.isGiven ? kafka.client(clientID: "salvo-topics") : nil
            // A secured cluster's settings go to kafka-topics.sh in a properties file.
            let properties = (client?.properties ?? [:]).sorted { $0.key < $1.key }
            if !properties.isEmpty {
                let lines = properties.map {
                    "\($0.key)=\(KafkaPropertyRedaction.printable($0.value, property: $0.key))"
                }
                print("# client.properties for --command-config: \(lines.joined(separator: " "))")
            }
            for (_, topic) in planned {
                print(
                    Self.kafkaTopicsCommand(
                        topic, bootstrap: client?.brokerList ?? "$BROKERS", commandConfig: !properties.isEmpty))
            }
            return
        }
        let client = try kafka.client(clientID: "salvo-topics", verbose: topics.verbose)
        let logger = CommandLogger.make(label: "salvo.topics", verbose: topics.verbose)
        let admin = try KafkaAdmin(configuration: client, logger: logger)
        let failures: [String]
        do {
            failures = try await create(planned.map(\.topic), admin: admin, brokers: client.brokerList)
        } catch {
            await admin.close()
            throw error
        }
        await admin.close()
        guard failures.isEmpty else {
            throw CommandFailure(
                "could not create \(failures.count) topic(s): \(failures.joined(separator: "; "))", exit: .unavailable)
        }
    }

    /// `kafka-topics.sh --bootstrap-server B [--command-config client.properties] --create
    /// --if-not-exists --topic T --partitions N --replication-factor R [--config k=v ...]`.
    static func kafkaTopicsCommand(_ topic: KafkaNewTopic, bootstrap: String, commandConfig: Bool = false) -> String {
        let configs = topic.configs.sorted { $0.key < $1.key }.map { " --config \($0.key)=\($0.value)" }.joined()
        let secured = commandConfig ? " --command-config client.properties" : ""
        return "kafka-topics.sh --bootstrap-server \(bootstrap)\(secured) --create --if-not-exists "
            + "--topic \(topic.name) --partitions \(topic.partitions) "
            + "--replication-factor \(topic.replicationFactor)\(configs)"
    }

    /// Creates the missing topics, prints one line per topic, and returns the failures.
    private func create(_ planned: [KafkaNewTopic], admin: KafkaAdmin, brokers: String) async throws -> [String] {
        let existing: [KafkaTopicMetadata]
        do {
            existing = try await admin.topics(timeout: topics.timeout.duration)
        } catch {
            throw CommandFailure(
                "cannot reach broker(s) \(brokers): \(error.message)", exit: CommandExit.status(of: error))
        }
        let missing = planned.filter { topic in !existing.contains { $0.name == topic.name } }
        let results: [KafkaTopicCreationResult]
        do {
            results = try await admin.createTopics(missing, timeout: topics.timeout.duration)
        } catch {
            throw CommandFailure("creating topics on \(brokers) failed: \(error.message)", exit: .unavailable)
        }
        var failures: [String] = []
        for topic in planned {
            if let metadata = existing.first(where: { $0.name == topic.name }) {
                print("exists   \(topic.name) (\(metadata.partitionCount) partitions)")
                continue
            }
            switch results.first(where: { $0.name == topic.name })?.outcome {
            case .created?:
                let compacted = topic.configs["cleanup.policy"] == "compact" ? ", compacted" : ""
                print(
                    "created  \(topic.name) (\(topic.partitions) partitions, replication factor \(topic.replicationFactor)\(compacted))"
                )
            case .alreadyExists?:
                print("exists   \(topic.name)")
            case .failed(let error)?:
                print("failed   \(topic.name): \(error.message)")
                failures.append("\(topic.name): \(error.message)")
            case nil:
                print("failed   \(topic.name): no answer from the cluster")
                failures.append("\(topic.name): no answer from the cluster")
            }
        }
        return failures
    }
}
