/// What one partition holds, from its oldest retained record (``KafkaBacklog``).
public struct KafkaPartitionBacklog: Hashable, Sendable {
    public var topicPartition: KafkaTopicPartition
    /// The offset of the oldest record still held.
    public var oldestOffset: Int64
    /// That record's timestamp (milliseconds since 1970), if it carries one.
    public var oldestTimestampMilliseconds: Int64?
    /// The offset after the newest record (the high watermark of the fetch that read the oldest).
    public var highWatermark: Int64

    public init(
        topicPartition: KafkaTopicPartition, oldestOffset: Int64, oldestTimestampMilliseconds: Int64?,
        highWatermark: Int64
    ) {
        self.topicPartition = topicPartition
        self.oldestOffset = oldestOffset
        self.oldestTimestampMilliseconds = oldestTimestampMilliseconds
        self.highWatermark = highWatermark
    }

    /// Records held (offsets between the oldest and the end; compaction can make it fewer).
    public var records: Int64 { max(0, highWatermark - oldestOffset) }
}
