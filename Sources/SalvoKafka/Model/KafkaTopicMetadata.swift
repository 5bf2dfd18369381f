/// What the cluster metadata says about one topic.
public struct KafkaTopicMetadata: Hashable, Sendable {
    public var name: String
    public var partitionCount: Int

    public init(name: String, partitionCount: Int) {
        self.name = name
        self.partitionCount = partitionCount
    }
}
