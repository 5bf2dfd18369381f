import CRdKafka

/// What the reader takes from its partitions' queue: records, and each partition's "reached the
/// end" marker with the partition it belongs to. The event API would deliver the marker as a
/// client error without its partition (and log it as one), so the reader consumes its queue as
/// messages, where librdkafka keeps the partition on every entry.
enum KafkaTopicReaderFetch: Sendable {
    case message(KafkaConsumerMessage)
    case endOfPartition(KafkaTopicPartition)
    case error(KafkaError)

    /// Takes up to `limit` entries from the client's message queue, waiting up to `timeout` for
    /// the first. Blocking: the loop thread only.
    static func take(from client: RDKafkaClient, limit: Int, timeoutMilliseconds: Int32) -> [KafkaTopicReaderFetch] {
        guard let queue = client.messageQueue else { return [] }
        var messages = [UnsafeMutablePointer<rd_kafka_message_t>?](repeating: nil, count: limit)
        let count = rd_kafka_consume_batch_queue(queue, Int32(clamping: timeoutMilliseconds), &messages, limit)
        guard count > 0 else { return [] }
        return messages.prefix(count).compactMap { message in
            guard let message else { return nil }
            // Every value is copied out before the message is destroyed.
            defer { rd_kafka_message_destroy(message) }
            return entry(message)
        }
    }

    private static func entry(_ message: UnsafeMutablePointer<rd_kafka_message_t>) -> KafkaTopicReaderFetch? {
        let partition = message.pointee.rkt.map {
            KafkaTopicPartition(topic: String(cString: rd_kafka_topic_name($0)), partition: message.pointee.partition)
        }
        switch message.pointee.err {
        case RD_KAFKA_RESP_ERR_NO_ERROR:
            guard let partition else { return nil }
            var timestampType = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE
            let timestamp = rd_kafka_message_timestamp(message, &timestampType)
            return .message(
                KafkaConsumerMessage(
                    topicPartition: partition,
                    offset: message.pointee.offset,
                    key: message.pointee.key.map {
                        Array(UnsafeRawBufferPointer(start: $0, count: message.pointee.key_len))
                    },
                    value: message.pointee.payload.map {
                        Array(UnsafeRawBufferPointer(start: $0, count: message.pointee.len))
                    } ?? [],
                    headers: [],
                    timestampMilliseconds: timestampType == RD_KAFKA_TIMESTAMP_NOT_AVAILABLE ? nil : timestamp
                ))
        case RD_KAFKA_RESP_ERR__PARTITION_EOF:
            return partition.map { .endOfPartition($0) }
        case let code:
            let detail = rd_kafka_message_errstr(message).map { String(cString: $0) }
            return .error(.rdKafka(code, context: "reading \(partition.map { "\($0)" } ?? "a topic")", detail: detail))
        }
    }
}
