/// What each of Salvo's topics must be, in one place: `salvo topics create` applies it,
/// `salvo topics check` and the worker's start compare the cluster with it.
///
/// The compacted topics keep state by key, and a delete policy loses it: control commands
/// (`salvo.control`, a cancel disappears after the retention time and a later worker sends the
/// campaign), campaign counts (`salvo.campaigns`), job checkpoints (`salvo.progress`, a crash
/// then re-sends partly sent jobs whole) and the latest invalid-token verdict per device token
/// (`salvo.feedback`, docs/jobs.md). The lane topics need at least as many partitions as worker
/// replicas may run: a consumer group gives each partition to one member.
public struct WorkerTopicRequirement: Sendable, Hashable {
    /// The topics of the contract (docs/design.md "Topics"), in the order they are created.
    public enum Role: String, CaseIterable, Sendable {
        case jobs, priority, feedback, retry, dlq, outcomes, control, campaigns, progress

        /// The name after `<prefix>.`.
        public var suffix: String {
            switch self {
            case .priority: "jobs.priority"
            default: rawValue
            }
        }

        /// The configuration key that names the topic (and, for the switchable ones, turns it off).
        public var key: String {
            switch self {
            case .dlq: "topics.dead_letter"
            default: "topics.\(rawValue)"
            }
        }

        /// Whether the topic keeps the latest record per key.
        public var isCompacted: Bool {
            switch self {
            case .feedback, .control, .campaigns, .progress: true
            case .jobs, .priority, .retry, .dlq, .outcomes: false
            }
        }

        /// Whether the worker replicas share its partitions (KEDA scales on their lag).
        public var scalesWithWorkers: Bool {
            switch self {
            case .jobs, .priority, .retry: true
            default: false
            }
        }
    }

    public var role: Role
    public var name: String

    public init(role: Role, name: String) {
        self.role = role
        self.name = name
    }

    /// The most replicas `ops/kubernetes/scaledobject.yaml` runs (`maxReplicaCount`): the lane
    /// topics need at least this many partitions, and `salvo topics create` makes them so.
    public static let scaledPartitions = 12

    /// Production clusters keep three copies of every partition.
    public static let replicationFactor = 3

    /// Topic settings `salvo topics create` sets and the checks require.
    public var requiredConfigs: [String: String] {
        role.isCompacted ? ["cleanup.policy": "compact"] : [:]
    }

    /// The requirements of a worker configured with `topics`: the switched-off ones are left out.
    public static func all(_ topics: WorkerTopics) -> [WorkerTopicRequirement] {
        var list: [WorkerTopicRequirement] = [
            .init(role: .jobs, name: topics.jobs), .init(role: .priority, name: topics.priority),
            .init(role: .feedback, name: topics.feedback), .init(role: .retry, name: topics.retry),
            .init(role: .dlq, name: topics.deadLetter),
        ]
        if let outcomes = topics.outcomes { list.append(.init(role: .outcomes, name: outcomes)) }
        if topics.followsControl {
            list += [.init(role: .control, name: topics.control), .init(role: .campaigns, name: topics.campaigns)]
        }
        if topics.keepsCheckpoints { list.append(.init(role: .progress, name: topics.progress)) }
        return list
    }

    /// The state topics whose absence or wrong settings make a worker unsafe: without them it
    /// would send what an operator cancelled, or re-send partly sent jobs whole after a crash.
    /// The worker refuses to start when one is missing or not compacted.
    public static func startRequirements(_ topics: WorkerTopics) -> [WorkerTopicRequirement] {
        all(topics).filter { [.control, .campaigns, .progress].contains($0.role) }
    }

    /// What to write to turn the feature off, for the roles that can be: the key and `null`.
    public var switchOff: String? {
        switch role {
        case .control, .campaigns: "topics.control: null (runs without campaign control)"
        case .progress: "topics.progress: null (runs without job checkpoints)"
        default: nil
        }
    }
}
