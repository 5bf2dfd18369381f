/// What the cluster metadata says about one topic.
public struct KafkaTopicMetadata: Hashable, Sendable {
    public var name: String
    public var partitionCount: Int
    /// The fewest replicas any partition has (0 for a topic without partitions).
    public var replicationFactor: Int

    public init(name: String, partitionCount: Int, replicationFactor: Int = 1) {
        self.name = name
        self.partitionCount = partitionCount
        self.replicationFactor = replicationFactor
    }
}
