/// A topic to create through `KafkaAdmin.createTopics`.
public struct KafkaNewTopic: Hashable, Sendable {
    public var name: String
    /// Default: 4 (what Salvo's worker pools expect as a minimum for spreading load).
    public var partitions: Int
    /// Default: 1. Production clusters want 3.
    public var replicationFactor: Int
    /// Topic-level settings such as `cleanup.policy` or `retention.ms`. Default: none.
    public var configs: [String: String]

    public init(name: String, partitions: Int = 4, replicationFactor: Int = 1, configs: [String: String] = [:]) {
        self.name = name
        self.partitions = partitions
        self.replicationFactor = replicationFactor
        self.configs = configs
    }
}
