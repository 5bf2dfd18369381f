/// A record received by a `KafkaConsumer`. Pass it (or its partition and offset) to
/// `KafkaConsumer.markDone` once it is fully processed, so its offset may be committed.
public struct KafkaConsumerMessage: Hashable, Sendable {
    public var topicPartition: KafkaTopicPartition
    public var offset: Int64
    public var key: [UInt8]?
    public var value: [UInt8]
    public var headers: [KafkaHeader]
    /// Milliseconds since the Unix epoch as stored in the record (create or log-append time), if any.
    public var timestampMilliseconds: Int64?

    public init(
        topicPartition: KafkaTopicPartition,
        offset: Int64,
        key: [UInt8]?,
        value: [UInt8],
        headers: [KafkaHeader],
        timestampMilliseconds: Int64?
    ) {
        self.topicPartition = topicPartition
        self.offset = offset
        self.key = key
        self.value = value
        self.headers = headers
        self.timestampMilliseconds = timestampMilliseconds
    }

    public var topic: String { topicPartition.topic }
    public var partition: Int32 { topicPartition.partition }
}
