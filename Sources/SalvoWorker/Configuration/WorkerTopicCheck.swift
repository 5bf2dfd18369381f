import SalvoKafka

/// One way a topic differs from its ``WorkerTopicRequirement``, as a one-line report naming the
/// topic, what is wrong and what to do.
public struct WorkerTopicFinding: Sendable, Hashable, CustomStringConvertible {
    public enum Problem: Sendable, Hashable {
        case missing
        /// `cleanup.policy` is not `compact` (what the broker reports, e.g. `delete`).
        case notCompacted(cleanupPolicy: String)
        case tooFewPartitions(found: Int, needed: Int)
        case tooFewReplicas(found: Int, needed: Int)
        /// The broker did not report the topic's settings, so they could not be compared.
        case unverified(reason: String)
    }

    public var requirement: WorkerTopicRequirement
    public var problem: Problem

    public init(requirement: WorkerTopicRequirement, problem: Problem) {
        self.requirement = requirement
        self.problem = problem
    }

    /// Settings that could not be read: a warning, not a failure of the check's own.
    public var isUnverified: Bool {
        if case .unverified = problem { return true }
        return false
    }

    public var description: String {
        let topic = "topic \(requirement.name) (\(requirement.role.key))"
        switch problem {
        case .missing:
            let off = requirement.switchOff.map { ", or set \($0)" } ?? ""
            return "\(topic) does not exist: create it with salvo topics create\(off)"
        case .notCompacted(let policy):
            return "\(topic) has cleanup.policy=\(policy), needs compact: "
                + "kafka-configs.sh --alter --entity-type topics --entity-name \(requirement.name) "
                + "--add-config cleanup.policy=compact"
        case .tooFewPartitions(let found, let needed):
            return "\(topic) has \(found) partitions, needs at least \(needed) (one per worker replica): "
                + "kafka-topics.sh --alter --topic \(requirement.name) --partitions \(needed)"
        case .tooFewReplicas(let found, let needed):
            return "\(topic) has replication factor \(found), needs \(needed): "
                + "reassign its partitions (kafka-reassign-partitions.sh)"
        case .unverified(let reason):
            return "\(topic): settings not verified, the broker did not report them (\(reason))"
        }
    }
}

/// Compares topics on the cluster with their requirements: `salvo topics check` and the worker's
/// start ask this, so both apply the same rules.
public enum WorkerTopicCheck {
    /// What one topic's metadata (`nil`: the cluster does not have it) and settings (`nil`: not
    /// asked) break. Pure, for tests.
    public static func findings(
        _ requirement: WorkerTopicRequirement,
        metadata: KafkaTopicMetadata?,
        configs: Result<[String: String], KafkaError>?,
        minimumPartitions: Int? = nil,
        minimumReplicationFactor: Int? = nil
    ) -> [WorkerTopicFinding] {
        guard let metadata else { return [WorkerTopicFinding(requirement: requirement, problem: .missing)] }
        var found: [WorkerTopicFinding] = []
        if let needed = minimumPartitions, requirement.role.scalesWithWorkers, metadata.partitionCount < needed {
            found.append(
                .init(
                    requirement: requirement, problem: .tooFewPartitions(found: metadata.partitionCount, needed: needed)
                ))
        }
        if let needed = minimumReplicationFactor, metadata.replicationFactor < needed {
            found.append(
                .init(
                    requirement: requirement,
                    problem: .tooFewReplicas(found: metadata.replicationFactor, needed: needed)))
        }
        for (name, value) in requirement.requiredConfigs.sorted(by: { $0.key < $1.key }) {
            switch configs {
            case nil:
                found.append(.init(requirement: requirement, problem: .unverified(reason: "not asked")))
            case .failure(let error)?:
                found.append(.init(requirement: requirement, problem: .unverified(reason: error.message)))
            case .success(let settings)?:
                guard let actual = settings[name] else {
                    found.append(
                        .init(requirement: requirement, problem: .unverified(reason: "no \(name) in its answer")))
                    continue
                }
                // `compact,delete` compacts too (and also deletes by age, which a state topic
                // must not): only the exact policy passes.
                if actual != value {
                    found.append(.init(requirement: requirement, problem: .notCompacted(cleanupPolicy: actual)))
                }
            }
        }
        return found
    }

    /// Reads the metadata of every topic and the settings of those with required settings, then
    /// compares. Throws only when the cluster cannot be read at all (`.brokerUnavailable`,
    /// `.timedOut`); settings the broker will not describe within `describeTimeout` (default:
    /// `timeout`) come back as `.unverified` findings.
    public static func findings(
        _ requirements: [WorkerTopicRequirement],
        admin: KafkaAdmin,
        minimumPartitions: Int? = nil,
        minimumReplicationFactor: Int? = nil,
        timeout: Duration = .seconds(10),
        describeTimeout: Duration? = nil
    ) async throws(KafkaError) -> [WorkerTopicFinding] {
        let metadata = try await admin.topics(timeout: timeout)
        let present = requirements.filter { requirement in metadata.contains { $0.name == requirement.name } }
        let described = present.filter { !$0.requiredConfigs.isEmpty }.map(\.name)
        var configs: [String: Result<[String: String], KafkaError>] = [:]
        if !described.isEmpty {
            do {
                configs = try await admin.topicConfigs(described, timeout: describeTimeout ?? timeout)
            } catch {
                for name in described { configs[name] = .failure(error) }
            }
        }
        return requirements.flatMap { requirement in
            findings(
                requirement, metadata: metadata.first { $0.name == requirement.name },
                configs: configs[requirement.name] ?? (described.contains(requirement.name) ? nil : .success([:])),
                minimumPartitions: minimumPartitions, minimumReplicationFactor: minimumReplicationFactor)
        }
    }
}
