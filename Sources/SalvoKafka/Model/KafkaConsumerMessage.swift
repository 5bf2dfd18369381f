import NIOCore

/// A record received by a `KafkaConsumer`. Pass it (or its partition and offset) to
/// `KafkaConsumer.markDone` once it is fully processed, so its offset may be committed.
public struct KafkaConsumerMessage: Hashable, Sendable {
    public var topicPartition: KafkaTopicPartition
    public var offset: Int64
    public var key: [UInt8]?
    /// The record's value, copied once out of librdkafka's buffer into a `ByteBuffer`, which a
    /// worker decodes and slices in place. As an array it took a second allocation and copy per
    /// record on the way to the decoder (with `RDKafkaClient.takeReadyMessages`, ~950 instructions
    /// of a per-user push less; docs/benchmarks.md, "The instruction gate").
    public var payload: ByteBuffer
    public var headers: [KafkaHeader]
    /// Milliseconds since the Unix epoch as stored in the record (create or log-append time), if any.
    public var timestampMilliseconds: Int64?

    public init(
        topicPartition: KafkaTopicPartition,
        offset: Int64,
        key: [UInt8]?,
        payload: ByteBuffer,
        headers: [KafkaHeader],
        timestampMilliseconds: Int64?
    ) {
        self.topicPartition = topicPartition
        self.offset = offset
        self.key = key
        self.payload = payload
        self.headers = headers
        self.timestampMilliseconds = timestampMilliseconds
    }

    public init(
        topicPartition: KafkaTopicPartition,
        offset: Int64,
        key: [UInt8]?,
        value: [UInt8],
        headers: [KafkaHeader],
        timestampMilliseconds: Int64?
    ) {
        self.init(
            topicPartition: topicPartition, offset: offset, key: key, payload: ByteBuffer(bytes: value),
            headers: headers, timestampMilliseconds: timestampMilliseconds)
    }

    /// The value's bytes as an array: a copy of ``payload``, for readers off the hot path.
    public var value: [UInt8] {
        get { Array(payload.readableBytesView) }
        set { payload = ByteBuffer(bytes: newValue) }
    }

    public var topic: String { topicPartition.topic }
    public var partition: Int32 { topicPartition.partition }
}
