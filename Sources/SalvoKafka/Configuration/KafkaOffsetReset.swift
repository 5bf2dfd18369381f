/// Where a consumer starts on a partition that has no committed offset (`auto.offset.reset`).
public struct KafkaOffsetReset: Hashable, Sendable, CustomStringConvertible {
    /// The librdkafka name of the policy.
    public let name: String

    private init(_ name: String) { self.name = name }

    public var description: String { name }

    /// Start at the oldest retained record: nothing enqueued before the first deployment is lost.
    public static let earliest = KafkaOffsetReset("earliest")
    /// Start at the end: only records produced after the group first joined.
    public static let latest = KafkaOffsetReset("latest")
    /// Fail the partition instead of guessing.
    public static let error = KafkaOffsetReset("error")
}
