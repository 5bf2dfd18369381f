extension SourcePosition {
    /// A topic and partition, for matching revoked partitions.
    struct Partition: Hashable, Sendable {
        var topic: String
        var partition: Int32
    }

    var partitionKey: Partition { Partition(topic: topic, partition: partition) }
}
