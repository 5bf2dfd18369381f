/// One partition of one topic: the unit of ordering, assignment, pausing and offset commits.
public struct KafkaTopicPartition: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var topic: String
    public var partition: Int32

    public init(topic: String, partition: Int32) {
        self.topic = topic
        self.partition = partition
    }

    public var description: String { "\(topic)[\(partition)]" }

    /// The partition only: a consumer looks each message's topic-partition up a few times
    /// (assignment, offset tracking, pauses), and hashing the topic's text was ~330 instructions
    /// per message. Equal values still hash equal; a consumer reads a handful of topics, whose
    /// same-numbered partitions share a bucket and `==` tells apart.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(partition)
    }

    /// What `Set` and `Dictionary` call instead of ``hash(into:)``: the partition through a
    /// multiply-xorshift mix, without seeding and finalizing a SipHash (~200 instructions per
    /// consumed message). Partition numbers are small and not chosen to collide. (The standard
    /// library names this requirement with its underscore.)
    // swift-format-ignore: NoLeadingUnderscores
    public func _rawHashValue(seed: Int) -> Int {
        var mixed = (UInt64(UInt32(bitPattern: partition)) ^ UInt64(UInt(bitPattern: seed))) &* 0x9E37_79B9_7F4A_7C15
        mixed ^= mixed >> 32
        return Int(Int64(bitPattern: mixed))
    }

    public static func < (lhs: KafkaTopicPartition, rhs: KafkaTopicPartition) -> Bool {
        (lhs.topic, lhs.partition) < (rhs.topic, rhs.partition)
    }
}
