/// One event taken from a client's event queue, already copied into Swift values (the C event
/// is destroyed before this is returned). Logs are written to the client's logger while
/// decoding and surface only as `.handled`.
enum RDKafkaEvent: Sendable {
    /// Delivery results of produced messages, in the order librdkafka reported them.
    case deliveryReports([RDKafkaDeliveryReport])
    /// A consumed record.
    case message(KafkaConsumerMessage)
    /// A consumer-side error attached to a partition or to the consumer as a whole.
    case consumerError(KafkaError, KafkaTopicPartition?)
    /// The group coordinator handed out or took away partitions; the caller must call the
    /// matching assign/unassign.
    case rebalance(RDKafkaRebalance)
    /// A client-level error (`RD_KAFKA_EVENT_ERROR`); `isFatal` means the client is unusable.
    case error(KafkaError)
    /// Statistics JSON, when `statistics.interval.ms` is set.
    case statistics(String)
    /// Logged, ignored or of a type this layer does not act on.
    case handled
}

/// The result of one produced message, identified by the opaque number given to `produce`.
struct RDKafkaDeliveryReport: Sendable {
    var id: UInt
    var result: Result<KafkaDeliveryReport, KafkaError>
}

/// A rebalance instruction from the group coordinator.
enum RDKafkaRebalance: Sendable, Equatable {
    case assign([KafkaTopicPartition])
    case revoke([KafkaTopicPartition])
    /// Rebalancing failed; librdkafka expects the current assignment to be dropped.
    case failed(KafkaError)
}
