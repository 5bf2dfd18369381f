/// How far a consumer is behind on one assigned partition.
///
/// The high watermark is the one librdkafka cached from the last Fetch response, not a
/// ListOffsets query: it costs no round trip and it is correct on brokers whose "latest offset"
/// answer is not (Tansu returns the last batch base + 1 there).
public struct KafkaPartitionLag: Hashable, Sendable {
    public var topicPartition: KafkaTopicPartition
    /// Offset of the next record the broker will write, or `nil` before the first fetch.
    public var highWatermark: Int64?
    /// The done watermark: the offset this consumer has committed or will commit next, if known.
    public var committableOffset: Int64?

    public init(topicPartition: KafkaTopicPartition, highWatermark: Int64?, committableOffset: Int64?) {
        self.topicPartition = topicPartition
        self.highWatermark = highWatermark
        self.committableOffset = committableOffset
    }

    /// Records not yet done, when both ends are known.
    public var lag: Int64? {
        guard let highWatermark, let committableOffset else { return nil }
        return max(0, highWatermark - committableOffset)
    }
}
