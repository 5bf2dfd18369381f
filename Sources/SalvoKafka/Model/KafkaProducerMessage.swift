/// A record to produce. Bytes are copied by librdkafka when the message is enqueued, so the
/// caller's arrays can be released as soon as `send`/`enqueue` returns.
public struct KafkaProducerMessage: Hashable, Sendable {
    public var topic: String
    /// An explicit partition, or `nil` to let the partitioner choose (by key hash when a key is set).
    public var partition: Int32?
    public var key: [UInt8]?
    public var value: [UInt8]
    public var headers: [KafkaHeader]
    /// The record's create time in milliseconds since 1970, or `nil` for the time it is produced.
    public var timestampMilliseconds: Int64?

    public init(
        topic: String,
        partition: Int32? = nil,
        key: [UInt8]? = nil,
        value: [UInt8],
        headers: [KafkaHeader] = [],
        timestampMilliseconds: Int64? = nil
    ) {
        self.topic = topic
        self.partition = partition
        self.key = key
        self.value = value
        self.headers = headers
        self.timestampMilliseconds = timestampMilliseconds
    }
}
