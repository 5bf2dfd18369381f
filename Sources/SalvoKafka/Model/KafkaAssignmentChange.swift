/// A change of a consumer's partition assignment, published for metrics and tests.
public enum KafkaAssignmentChange: Hashable, Sendable {
    /// These partitions were added to the assignment.
    case assigned([KafkaTopicPartition])
    /// These partitions were taken away; their done watermark was committed first.
    case revoked([KafkaTopicPartition])
}
