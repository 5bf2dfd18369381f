import CRdKafka

extension RDKafkaClient {
    enum ProduceResult: Equatable {
        case enqueued
        /// librdkafka's local queue is at `queue.buffering.max.*`: wait for deliveries, then retry.
        case queueFull
        case failed(KafkaError)
    }

    /// Enqueues one message without blocking. `id` comes back in its delivery report.
    /// librdkafka copies key, value and headers (`RD_KAFKA_MSG_F_COPY`), so nothing here needs
    /// to outlive the call. Safe from any thread while the client is alive.
    func produce(_ message: KafkaProducerMessage, id: UInt) -> ProduceResult {
        // The header list passes to librdkafka only if produceva succeeds.
        let headers = message.headers.isEmpty ? nil : Self.makeHeaders(message.headers)
        let error = message.topic.withCString { topic in
            Self.withBytes(message.value) { value, valueCount in
                Self.withOptionalBytes(message.key) { key, keyCount in
                    // produceva reads the arguments during the call only: stack storage suffices.
                    withUnsafeTemporaryAllocation(of: rd_kafka_vu_t.self, capacity: 8) { arguments in
                        var count = 0
                        func add(_ type: rd_kafka_vtype_t, _ fill: (inout rd_kafka_vu_t) -> Void) {
                            var argument = rd_kafka_vu_t()
                            argument.vtype = type
                            fill(&argument)
                            arguments.initializeElement(at: count, to: argument)
                            count += 1
                        }
                        add(RD_KAFKA_VTYPE_TOPIC) { $0.u.cstr = topic }
                        add(RD_KAFKA_VTYPE_VALUE) {
                            $0.u.mem = .init(ptr: UnsafeMutableRawPointer(mutating: value), size: valueCount)
                        }
                        add(RD_KAFKA_VTYPE_MSGFLAGS) { $0.u.i = RD_KAFKA_MSG_F_COPY }
                        add(RD_KAFKA_VTYPE_OPAQUE) { $0.u.ptr = UnsafeMutableRawPointer(bitPattern: id) }
                        if let key {
                            add(RD_KAFKA_VTYPE_KEY) {
                                $0.u.mem = .init(ptr: UnsafeMutableRawPointer(mutating: key), size: keyCount)
                            }
                        }
                        if let partition = message.partition {
                            add(RD_KAFKA_VTYPE_PARTITION) { $0.u.i32 = partition }
                        }
                        if let headers {
                            add(RD_KAFKA_VTYPE_HEADERS) { $0.u.headers = headers }
                        }
                        if let timestamp = message.timestampMilliseconds {
                            add(RD_KAFKA_VTYPE_TIMESTAMP) { $0.u.i64 = timestamp }
                        }
                        return rd_kafka_produceva(handle, arguments.baseAddress, count)
                    }
                }
            }
        }
        guard let error else { return .enqueued }
        if let headers { rd_kafka_headers_destroy(headers) }
        if rd_kafka_error_code(error) == RD_KAFKA_RESP_ERR__QUEUE_FULL {
            rd_kafka_error_destroy(error)
            return .queueFull
        }
        return .failed(.consuming(error, context: "cannot enqueue message for \(message.topic)"))
    }

    /// Drops queued and in-flight messages; their delivery reports arrive as purge errors.
    func purgeAll() {
        _ = rd_kafka_purge(handle, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT | RD_KAFKA_PURGE_F_NON_BLOCKING)
    }

    private static func makeHeaders(_ headers: [KafkaHeader]) -> OpaquePointer? {
        guard let list = rd_kafka_headers_new(headers.count) else { return nil }
        for header in headers {
            // rd_kafka_header_add copies name and value.
            if let value = header.value {
                withBytes(value) { bytes, count in
                    _ = rd_kafka_header_add(list, header.key, -1, bytes, count)
                }
            } else {
                _ = rd_kafka_header_add(list, header.key, -1, nil, 0)
            }
        }
        return list
    }

    /// A pointer to the bytes, never nil for a present (possibly empty) array: librdkafka writes
    /// a NULL value as a tombstone, which an empty value is not.
    private static func withBytes<R>(_ bytes: [UInt8], _ body: (UnsafeRawPointer, Int) -> R) -> R {
        bytes.withUnsafeBytes { buffer in
            if let base = buffer.baseAddress {
                return body(base, buffer.count)
            }
            return withUnsafeBytes(of: UInt8(0)) { body($0.baseAddress!, 0) }
        }
    }

    private static func withOptionalBytes<R>(_ bytes: [UInt8]?, _ body: (UnsafeRawPointer?, Int) -> R) -> R {
        guard let bytes else { return body(nil, 0) }
        return withBytes(bytes) { body($0, $1) }
    }
}
