/// A Kafka record header. Values are bytes; Kafka allows repeated keys, so headers are a list.
public struct KafkaHeader: Hashable, Sendable {
    public var key: String
    /// `nil` is a header present without a value, which Kafka distinguishes from an empty value.
    public var value: [UInt8]?

    public init(key: String, value: [UInt8]?) {
        self.key = key
        self.value = value
    }

    public init(key: String, value: String) {
        self.key = key
        self.value = Array(value.utf8)
    }
}
