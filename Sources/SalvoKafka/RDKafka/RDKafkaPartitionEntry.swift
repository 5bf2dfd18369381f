import CRdKafka
import SalvoPrimitives

/// What a reader without a consumer group (``KafkaTopicReader``, ``KafkaBacklog``) takes from its
/// partitions' message queue: records, each partition's "reached the end" marker with the
/// partition it belongs to, and read errors. The event API would deliver the marker as a client
/// error without its partition (and log it as one), so these readers take their queue as
/// messages, where librdkafka keeps the partition on every entry.
enum RDKafkaPartitionEntry: Sendable {
    case message(KafkaConsumerMessage)
    case endOfPartition(KafkaTopicPartition)
    case error(KafkaError)

    /// An entry for what the message decoder returned in place of a record; nil for what a
    /// reader ignores (an end marker without a partition, anything already handled).
    init?(_ event: RDKafkaEvent) {
        switch event {
        case .message(let message):
            self = .message(message)
        case .consumerError(let error, let partition)
        where error.rdKafkaErrorCode == RD_KAFKA_RESP_ERR__PARTITION_EOF.rawValue:
            guard let partition else { return nil }
            self = .endOfPartition(partition)
        case .consumerError(let error, _):
            self = .error(error)
        case .deliveryReports, .rebalance, .error, .statistics, .handled:
            return nil
        }
    }
}

extension RDKafkaClient {
    /// Starts reading `partitions` at their oldest record, their records (and end markers) going
    /// to ``messageQueue``: a reader without a group assigns every partition itself.
    func readFromBeginning(_ partitions: [KafkaTopicPartition]) throws(KafkaError) {
        routeMessages(of: partitions)
        try assign(
            partitions,
            startOffsets: Dictionary(uniqueKeysWithValues: partitions.map { ($0, RDKafkaOffset.beginning) }))
    }

    /// Takes up to `limit` entries from ``messageQueue``, waiting up to `timeoutMilliseconds` for
    /// the batch to fill. The records are decoded by ``takeReadyMessages(limit:timeoutMilliseconds:into:other:)``,
    /// the consumer's own decoder, so a record reads the same whichever reader took it.
    /// Blocking: the loop thread only.
    func takePartitionEntries(limit: Int, timeoutMilliseconds: Int32) -> [RDKafkaPartitionEntry] {
        var messages: [KafkaConsumerMessage] = []
        var entries: [RDKafkaPartitionEntry] = []
        _ = takeReadyMessages(limit: limit, timeoutMilliseconds: timeoutMilliseconds, into: &messages) {
            batch, event in
            // The records before the other entry come first, as on the queue.
            entries += batch.map(RDKafkaPartitionEntry.message)
            batch.removeAll(keepingCapacity: true)
            if let entry = RDKafkaPartitionEntry(event) { entries.append(entry) }
        }
        entries += messages.map(RDKafkaPartitionEntry.message)
        return entries
    }
}
