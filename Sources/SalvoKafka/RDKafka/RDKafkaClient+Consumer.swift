import CRdKafka
import SalvoPrimitives
import Synchronization

/// Consumer-group calls. All of them run on the consumer's loop thread; the ones that wait for
/// the broker (`commit`, `committed`) block only that thread.
extension RDKafkaClient {
    func subscribe(_ topics: [String]) throws(KafkaError) {
        let list = RDKafkaTopicPartitionList(
            topics.map { KafkaTopicPartition(topic: $0, partition: RD_KAFKA_PARTITION_UA) })
        let error = rd_kafka_subscribe(handle, list.pointer)
        guard error == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw .rdKafka(error, context: "cannot subscribe to \(topics.joined(separator: ","))")
        }
        // The caller's own strings name the topics of its messages and assignments, so its
        // comparisons with them (a topic per message, ~120 instructions each when the text is
        // read) are equal by identity.
        topicNames.withLock { names in
            for topic in topics where names.count < 16 && !names.contains(topic) { names.append(topic) }
        }
    }

    /// Whether the group uses incremental (cooperative) rebalancing, which needs the
    /// incremental assign calls instead of replacing the whole assignment.
    var isCooperative: Bool {
        String(cString: rd_kafka_rebalance_protocol(handle)) == "COOPERATIVE"
    }

    /// True while handling a revoke that happened because the member was evicted: commits for
    /// the revoked partitions would be rejected.
    var assignmentLost: Bool {
        rd_kafka_assignment_lost(handle) != 0
    }

    /// Sends the partitions' fetched messages to `messageQueue` instead of the consumer queue.
    /// librdkafka keeps an application-set forward across fetch restarts.
    func routeMessages(of partitions: [KafkaTopicPartition]) {
        guard let messageQueue else { return }
        for partition in partitions {
            // A new reference each time; the forward lives on in the partition's queue.
            guard let partitionQueue = rd_kafka_queue_get_partition(handle, partition.topic, partition.partition) else {
                continue
            }
            rd_kafka_queue_forward(partitionQueue, messageQueue)
            rd_kafka_queue_destroy(partitionQueue)
        }
    }

    /// Adds partitions (cooperative) or replaces the assignment (eager). Partitions without a
    /// start offset start at the group's committed offset (`RD_KAFKA_OFFSET_INVALID`).
    func assign(_ partitions: [KafkaTopicPartition], startOffsets: [KafkaTopicPartition: Int64]) throws(KafkaError) {
        let list = RDKafkaTopicPartitionList(
            offsets: Dictionary(
                uniqueKeysWithValues: partitions.map { ($0, startOffsets[$0] ?? Int64(RD_KAFKA_OFFSET_INVALID)) })
        )
        if isCooperative {
            if let error = rd_kafka_incremental_assign(handle, list.pointer) {
                throw .consuming(error, context: "incremental assign failed")
            }
        } else {
            let error = rd_kafka_assign(handle, list.pointer)
            guard error == RD_KAFKA_RESP_ERR_NO_ERROR else { throw .rdKafka(error, context: "assign failed") }
        }
    }

    func unassign(_ partitions: [KafkaTopicPartition]) throws(KafkaError) {
        if isCooperative {
            let list = RDKafkaTopicPartitionList(partitions)
            if let error = rd_kafka_incremental_unassign(handle, list.pointer) {
                throw .consuming(error, context: "incremental unassign failed")
            }
        } else {
            let error = rd_kafka_assign(handle, nil)
            guard error == RD_KAFKA_RESP_ERR_NO_ERROR else { throw .rdKafka(error, context: "unassign failed") }
        }
    }

    /// Synchronous commit of exactly these offsets (each is the next offset to consume).
    func commit(_ offsets: [KafkaTopicPartition: Int64]) throws(KafkaError) {
        guard !offsets.isEmpty else { return }
        let list = RDKafkaTopicPartitionList(offsets: offsets)
        let error = rd_kafka_commit(handle, list.pointer, 0)
        guard error == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw commitError(error, detail: lastErrorText)
        }
        if let failed = list.entries.first(where: { $0.error != RD_KAFKA_RESP_ERR_NO_ERROR }) {
            throw commitError(failed.error, detail: "\(failed.partition)")
        }
    }

    private func commitError(_ error: rd_kafka_resp_err_t, detail: String?) -> KafkaError {
        var result = KafkaError.rdKafka(error, context: "offset commit failed", detail: detail)
        if !result.isFatal { result.code = .commitFailed }
        return result
    }

    /// Pauses fetching. librdkafka drops what it prefetched for these partitions and resumes
    /// from the last position handed to the application, so use it for long pauses only.
    func pause(_ partitions: [KafkaTopicPartition]) {
        guard !partitions.isEmpty else { return }
        let list = RDKafkaTopicPartitionList(partitions)
        _ = rd_kafka_pause_partitions(handle, list.pointer)
    }

    func resume(_ partitions: [KafkaTopicPartition]) {
        guard !partitions.isEmpty else { return }
        let list = RDKafkaTopicPartitionList(partitions)
        _ = rd_kafka_resume_partitions(handle, list.pointer)
    }

    /// The high watermark cached from the last Fetch response, without a broker round trip.
    func cachedHighWatermark(_ partition: KafkaTopicPartition) -> Int64? {
        var low: Int64 = 0
        var high: Int64 = 0
        let error = rd_kafka_get_watermark_offsets(handle, partition.topic, partition.partition, &low, &high)
        guard error == RD_KAFKA_RESP_ERR_NO_ERROR, high >= 0 else { return nil }
        return high
    }

    /// The group's committed offsets, asked from the coordinator; `nil` for "none committed".
    func committed(
        _ partitions: [KafkaTopicPartition], timeout: Duration
    ) throws(KafkaError) -> [KafkaTopicPartition: Int64?] {
        let list = RDKafkaTopicPartitionList(partitions)
        let error = rd_kafka_committed(handle, list.pointer, timeout.timeoutMilliseconds)
        guard error == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw requestFailure(error, context: "cannot read committed offsets")
        }
        var result: [KafkaTopicPartition: Int64?] = [:]
        for entry in list.entries {
            result[entry.partition] = entry.offset >= 0 ? entry.offset : nil
        }
        return result
    }

    /// Per partition, the first offset whose record timestamp is at or after `timestamp`
    /// (milliseconds since 1970), or `RD_KAFKA_OFFSET_END` when the partition has none
    /// (ListOffsets by time). Partitions the broker answered with an error are left out.
    func offsets(
        atTimestamp timestamp: Int64, of partitions: [KafkaTopicPartition], timeout: Duration
    ) throws(KafkaError) -> [KafkaTopicPartition: Int64] {
        let list = RDKafkaTopicPartitionList(partitions, offset: timestamp)
        let error = rd_kafka_offsets_for_times(handle, list.pointer, timeout.timeoutMilliseconds)
        guard error == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw requestFailure(error, context: "cannot look offsets up by time")
        }
        var result: [KafkaTopicPartition: Int64] = [:]
        for entry in list.entries where entry.error == RD_KAFKA_RESP_ERR_NO_ERROR {
            result[entry.partition] = entry.offset >= 0 ? entry.offset : Int64(RD_KAFKA_OFFSET_END)
        }
        return result
    }

    /// Starts leaving the group. Rebalance events keep arriving on the event queue and must be
    /// served until `isConsumerClosed`.
    func startClose() throws(KafkaError) {
        if let error = rd_kafka_consumer_close_queue(handle, eventQueue) {
            throw .consuming(error, context: "consumer close failed")
        }
    }

    var isConsumerClosed: Bool {
        rd_kafka_consumer_closed(handle) != 0
    }
}
