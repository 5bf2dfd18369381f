import CRdKafka
import Logging
import NIOCore
import SalvoPrimitives
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

extension RDKafkaClient {
    /// Waits up to `timeoutMilliseconds` for one event and returns it as Swift values.
    /// Blocking: call only from the loop thread.
    func poll(timeoutMilliseconds: Int32) -> RDKafkaEvent? {
        poll(eventQueue, timeoutMilliseconds: timeoutMilliseconds)
    }

    /// Like `poll`, on the consumer's message queue.
    func pollMessage(timeoutMilliseconds: Int32) -> RDKafkaEvent? {
        guard let messageQueue else { return nil }
        return poll(messageQueue, timeoutMilliseconds: timeoutMilliseconds)
    }

    /// Takes up to `limit` messages from the consumer's message queue, appending them to `batch`
    /// in order; anything else the queue holds (a partition's fetch error or end marker) goes to
    /// `other` in its place, with the messages before it. Returns how many were taken. The one
    /// decoder of fetched messages: the group consumer's loop and the readers without a group
    /// (``takePartitionEntries(limit:timeoutMilliseconds:)``) both take their records here.
    ///
    /// One `rd_kafka_consume_batch_queue` call instead of an event per message: polling paid
    /// the queue's lock, an event and its destruction per message. The consumer's 0 ms timeout
    /// matters: with more, the call waits until the batch is full (or the time is up), which only
    /// the readers without a group want. The messages stay librdkafka's until destroyed here,
    /// after their bytes were copied; the pointer array lives only for this call.
    func takeReadyMessages(
        limit: Int, timeoutMilliseconds: Int32 = 0, into batch: inout [KafkaConsumerMessage],
        other: (inout [KafkaConsumerMessage], RDKafkaEvent) -> Void
    ) -> Int {
        guard let messageQueue, limit > 0 else { return 0 }
        let messages = UnsafeMutablePointer<UnsafeMutablePointer<rd_kafka_message_t>?>.allocate(capacity: limit)
        defer { messages.deallocate() }
        let count = rd_kafka_consume_batch_queue(messageQueue, timeoutMilliseconds, messages, limit)
        guard count > 0 else { return 0 }
        // Consecutive messages of one topic share its lookup: the handle cannot be reused for
        // another topic while the messages holding it are alive.
        var lastTopic: (handle: OpaquePointer, name: String)?
        for index in 0..<count {
            guard let message = messages[index] else { continue }
            defer { rd_kafka_message_destroy(message) }
            let partition = message.pointee.rkt.map { handle in
                let name: String
                if let lastTopic, lastTopic.handle == handle {
                    name = lastTopic.name
                } else {
                    name = topicName(rd_kafka_topic_name(handle))
                    lastTopic = (handle, name)
                }
                return KafkaTopicPartition(topic: name, partition: message.pointee.partition)
            }
            let event = self.event(of: UnsafePointer(message), partition: partition)
            if case .message(let taken) = event {
                batch.append(taken)
            } else {
                other(&batch, event)
            }
        }
        return count
    }

    private func poll(_ queue: OpaquePointer, timeoutMilliseconds: Int32) -> RDKafkaEvent? {
        guard let event = rd_kafka_queue_poll(queue, timeoutMilliseconds) else { return nil }
        // Every value is copied out before the event (and the messages it owns) is destroyed.
        defer { rd_kafka_event_destroy(event) }
        let type = rd_kafka_event_type(event)
        switch type {
        case RD_KAFKA_EVENT_FETCH:
            return fetched(event)
        case RD_KAFKA_EVENT_DR:
            return .deliveryReports(deliveryReports(event))
        case RD_KAFKA_EVENT_LOG:
            log(event)
            return .handled
        case RD_KAFKA_EVENT_ERROR:
            return .error(clientError(event))
        case RD_KAFKA_EVENT_REBALANCE:
            return .rebalance(rebalance(event))
        case RD_KAFKA_EVENT_STATS:
            return rd_kafka_event_stats(event).map { .statistics(String(cString: $0)) } ?? .handled
        case RD_KAFKA_EVENT_OFFSET_COMMIT, RD_KAFKA_EVENT_NONE:
            return .handled
        default:
            logger.debug("ignoring librdkafka event of unknown type", metadata: ["rdkafka.event": "\(type)"])
            return .handled
        }
    }

    private func fetched(_ event: OpaquePointer) -> RDKafkaEvent {
        guard let message = rd_kafka_event_message_next(event) else { return .handled }
        let partition = message.pointee.rkt.map {
            KafkaTopicPartition(topic: topicName(rd_kafka_topic_name($0)), partition: message.pointee.partition)
        }
        return self.event(of: message, partition: partition)
    }

    /// A fetched message (or a partition's fetch error) as an event.
    private func event(of message: UnsafePointer<rd_kafka_message_t>, partition: KafkaTopicPartition?) -> RDKafkaEvent {
        guard message.pointee.err == RD_KAFKA_RESP_ERR_NO_ERROR else {
            let detail = rd_kafka_message_errstr(message).map { String(cString: $0) }
            let error = KafkaError.rdKafka(message.pointee.err, context: "consumer error", detail: detail)
            return .consumerError(error, partition)
        }
        guard let partition else { return .handled }
        return .message(Self.consumerMessage(message, partition: partition, readsKeysAndHeaders: readsKeysAndHeaders))
    }

    /// The `String` of a topic name, the same one for every message of the topic: a consumer
    /// reads a handful of topics, and a name built per message was an allocation (freed on another
    /// thread) per message. Matched on the name's bytes, not on librdkafka's topic handle, whose
    /// address a later topic could reuse.
    private func topicName(_ name: UnsafePointer<CChar>) -> String {
        let bytes = UnsafeRawBufferPointer(start: name, count: strlen(name))
        return topicNames.withLock { names in
            if let known = names.first(where: {
                $0.utf8.count == bytes.count
                    && $0.utf8.withContiguousStorageIfAvailable {
                        memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0
                    } ?? $0.utf8.elementsEqual(bytes)
            }) {
                return known
            }
            let created = String(decoding: bytes, as: UTF8.self)
            // Bounded: a pattern subscription could meet any number of topics.
            if names.count == 16 { names.removeFirst() }
            names.append(created)
            return created
        }
    }

    private static func consumerMessage(
        _ message: UnsafePointer<rd_kafka_message_t>,
        partition: KafkaTopicPartition,
        readsKeysAndHeaders: Bool
    ) -> KafkaConsumerMessage {
        let payload =
            message.pointee.payload.map {
                ByteBuffer(bytes: UnsafeRawBufferPointer(start: $0, count: message.pointee.len))
            } ?? ByteBuffer()
        var timestampType = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE
        let timestamp = rd_kafka_message_timestamp(message, &timestampType)
        return KafkaConsumerMessage(
            topicPartition: partition,
            offset: message.pointee.offset,
            key: readsKeysAndHeaders ? bytes(message.pointee.key, count: message.pointee.key_len) : nil,
            payload: payload,
            headers: readsKeysAndHeaders ? headers(of: message) : [],
            timestampMilliseconds: timestampType == RD_KAFKA_TIMESTAMP_NOT_AVAILABLE ? nil : timestamp
        )
    }

    private static func headers(of message: UnsafePointer<rd_kafka_message_t>) -> [KafkaHeader] {
        var list: OpaquePointer?
        // The header list stays owned by the message; it is read, never freed here.
        guard rd_kafka_message_headers(message, &list) == RD_KAFKA_RESP_ERR_NO_ERROR, let list else { return [] }
        var headers: [KafkaHeader] = []
        var index = 0
        var name: UnsafePointer<CChar>?
        var value: UnsafeRawPointer?
        var size = 0
        while rd_kafka_header_get_all(list, index, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR {
            if let name {
                headers.append(KafkaHeader(key: String(cString: name), value: bytes(value, count: size)))
            }
            index += 1
        }
        return headers
    }

    private static func bytes(_ pointer: UnsafeRawPointer?, count: Int) -> [UInt8]? {
        guard let pointer else { return nil }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    private static func bytes(_ pointer: UnsafeMutableRawPointer?, count: Int) -> [UInt8]? {
        bytes(UnsafeRawPointer(pointer), count: count)
    }

    private func deliveryReports(_ event: OpaquePointer) -> [RDKafkaDeliveryReport] {
        var reports: [RDKafkaDeliveryReport] = []
        reports.reserveCapacity(rd_kafka_event_message_count(event))
        while let message = rd_kafka_event_message_next(event) {
            let id = UInt(bitPattern: message.pointee._private)
            let topic = message.pointee.rkt.map { String(cString: rd_kafka_topic_name($0)) } ?? ""
            if message.pointee.err == RD_KAFKA_RESP_ERR_NO_ERROR {
                let report = KafkaDeliveryReport(
                    topic: topic, partition: message.pointee.partition, offset: message.pointee.offset)
                reports.append(RDKafkaDeliveryReport(id: id, result: .success(report)))
            } else {
                var detail = rd_kafka_message_errstr(message).map { String(cString: $0) }
                if message.pointee.err == RD_KAFKA_RESP_ERR__MSG_TIMED_OUT, let last = lastErrorText {
                    detail = last
                }
                let error = KafkaError.rdKafka(
                    message.pointee.err, context: "delivery to \(topic) failed", detail: detail)
                reports.append(RDKafkaDeliveryReport(id: id, result: .failure(error)))
            }
        }
        return reports
    }

    /// One of librdkafka's log lines, held back by kind (its facility: `FAIL`, `REQTMOUT`, …) while
    /// the kind repeats: during a broker outage each client logs every reconnect attempt.
    private func log(_ event: OpaquePointer) {
        var facility: UnsafePointer<CChar>?
        var text: UnsafePointer<CChar>?
        var level: Int32 = 0
        guard rd_kafka_event_log(event, &facility, &text, &level) == 0, let text else { return }
        let message = String(cString: text)
        let facilityName = facility.map { String(cString: $0) } ?? ""
        lastLogText.withLock { $0 = message }
        log(
            RDKafkaConfig.loggerLevel(syslog: level), message, kind: "librdkafka \(facilityName)",
            metadata: ["rdkafka.facility": "\(facilityName)"])
    }

    private func clientError(_ event: OpaquePointer) -> KafkaError {
        let code = rd_kafka_event_error(event)
        let text = rd_kafka_event_error_string(event).map { String(cString: $0) }
        if rd_kafka_event_error_is_fatal(event) != 0 {
            let fatal = fatalError() ?? .rdKafka(code, context: "fatal client error", detail: text, isFatal: true)
            recordError(fatal.message, code: code)
            logger.error("librdkafka fatal error", metadata: ["error": "\(fatal)"])
            return fatal
        }
        if let text { recordError(text, code: code) }
        let error = KafkaError.rdKafka(code, context: "client error", detail: text)
        // librdkafka reports a broker failure twice: a FAIL log line ("[thrd:…]: " + text), then
        // an error event with the text. The line was written (or counted) already.
        if let text, !text.isEmpty, lastLogText.withLock({ $0?.hasSuffix(text) == true }) {
            logger.debug("librdkafka error", metadata: ["error": "\(error)"])
            return error
        }
        // Connection errors repeat while a broker is away; librdkafka retries them by itself.
        log(
            error.isRetriable ? .info : .warning, "librdkafka error",
            kind: "librdkafka error \(error.rdKafkaErrorName ?? "\(code)")",
            detail: text, metadata: ["error": "\(error)"])
        return error
    }

    private func rebalance(_ event: OpaquePointer) -> RDKafkaRebalance {
        let partitions = RDKafkaTopicPartitionList.read(
            rd_kafka_event_topic_partition_list(event), topicName: topicName)
        switch rd_kafka_event_error(event) {
        case RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS:
            return .assign(partitions)
        case RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS:
            return .revoke(partitions)
        case let other:
            let text = rd_kafka_event_error_string(event).map { String(cString: $0) }
            return .failed(.rdKafka(other, context: "rebalance failed", detail: text))
        }
    }
}
