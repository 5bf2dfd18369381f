import CRdKafka

/// Owns one `rd_kafka_topic_partition_list_t` for the length of a call into librdkafka.
///
/// Lists are built from Swift values right before a call and read back right after it, so no
/// list outlives the function that created it (`deinit` destroys it).
final class RDKafkaTopicPartitionList {
    let pointer: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>

    /// Each partition is added with `offset` (`RD_KAFKA_OFFSET_INVALID` means "no offset").
    init(_ partitions: some Sequence<KafkaTopicPartition>, offset: Int64 = Int64(RD_KAFKA_OFFSET_INVALID)) {
        pointer = rd_kafka_topic_partition_list_new(0)
        for partition in partitions {
            add(partition, offset: offset)
        }
    }

    init(offsets: [KafkaTopicPartition: Int64]) {
        pointer = rd_kafka_topic_partition_list_new(Int32(clamping: offsets.count))
        for (partition, offset) in offsets.sorted(by: { $0.key < $1.key }) {
            add(partition, offset: offset)
        }
    }

    /// Copies a list librdkafka owns (for example an event's) into Swift values; `topicName`
    /// makes each topic's `String` (a client passes its interned names).
    static func read(
        _ list: UnsafePointer<rd_kafka_topic_partition_list_t>?,
        topicName: (UnsafePointer<CChar>) -> String = { String(cString: $0) }
    ) -> [KafkaTopicPartition] {
        entries(of: list, topicName: topicName).map(\.partition)
    }

    deinit {
        rd_kafka_topic_partition_list_destroy(pointer)
    }

    var entries: [(partition: KafkaTopicPartition, offset: Int64, error: rd_kafka_resp_err_t)] {
        Self.entries(of: UnsafePointer(pointer), topicName: { String(cString: $0) })
    }

    private func add(_ partition: KafkaTopicPartition, offset: Int64) {
        let element = rd_kafka_topic_partition_list_add(pointer, partition.topic, partition.partition)
        element?.pointee.offset = offset
    }

    private static func entries(
        of list: UnsafePointer<rd_kafka_topic_partition_list_t>?,
        topicName: (UnsafePointer<CChar>) -> String
    ) -> [(partition: KafkaTopicPartition, offset: Int64, error: rd_kafka_resp_err_t)] {
        guard let list, let elements = list.pointee.elems else { return [] }
        return (0..<Int(list.pointee.cnt)).map { index in
            let element = elements[index]
            return (
                KafkaTopicPartition(topic: topicName(element.topic), partition: element.partition),
                element.offset,
                element.err
            )
        }
    }
}
