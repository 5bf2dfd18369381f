/// What a consumer reports for metrics, without this module depending on a metrics library: the
/// worker turns these calls into `salvo_consumer_*` instruments.
///
/// Called on the consumer's poll thread, so each must be quick and must not block or call back
/// into the consumer.
public struct KafkaConsumerObserver: Sendable {
    /// A rebalance changed the assignment: librdkafka handed partitions over (`assigned`, once
    /// per completed rebalance, possibly none) or took them away (`assigned` false).
    /// `assignmentCount` is the number of partitions held afterwards.
    public var rebalanced: @Sendable (_ assigned: Bool, _ assignmentCount: Int) -> Void
    /// An offset commit finished: its round trip to the coordinator and whether it succeeded.
    public var committed: @Sendable (_ duration: Duration, _ succeeded: Bool) -> Void

    public init(
        rebalanced: @escaping @Sendable (_ assigned: Bool, _ assignmentCount: Int) -> Void = { _, _ in },
        committed: @escaping @Sendable (_ duration: Duration, _ succeeded: Bool) -> Void = { _, _ in }
    ) {
        self.rebalanced = rebalanced
        self.committed = committed
    }

    /// Reports nothing.
    public static let none = KafkaConsumerObserver()
}
