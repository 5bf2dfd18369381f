/// How a consumer group spreads partitions over members (`partition.assignment.strategy`).
public struct KafkaAssignmentStrategy: Hashable, Sendable, CustomStringConvertible {
    /// The librdkafka name of the assignor.
    public let name: String

    private init(_ name: String) { self.name = name }

    public var description: String { name }

    /// Contiguous ranges per topic. The default: it works on every broker Salvo is tested on.
    public static let range = KafkaAssignmentStrategy("range")
    public static let roundRobin = KafkaAssignmentStrategy("roundrobin")
    /// Incremental rebalancing. Tansu 0.6 does not support it (the second member never receives
    /// partitions), so use it only against Apache Kafka.
    public static let cooperativeSticky = KafkaAssignmentStrategy("cooperative-sticky")

    /// The strategy librdkafka calls `name`, if it is one of these.
    public static func named(_ name: String) -> KafkaAssignmentStrategy? {
        [range, roundRobin, cooperativeSticky].first { $0.name == name }
    }
}
