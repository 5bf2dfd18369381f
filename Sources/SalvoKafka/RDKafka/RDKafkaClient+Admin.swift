import CRdKafka
import SalvoPrimitives

/// Admin calls. Each blocks its caller (the admin loop thread) until the cluster answered or
/// the timeout passed; results come back on a private queue created per call.
extension RDKafkaClient {
    /// All topics the cluster knows. Asking for all topics never auto-creates one, which asking
    /// for a single named topic may do.
    func topics(timeout: Duration) throws(KafkaError) -> [KafkaTopicMetadata] {
        var metadata: UnsafePointer<rd_kafka_metadata>?
        let error = rd_kafka_metadata(handle, 1, nil, &metadata, timeout.timeoutMilliseconds)
        guard error == RD_KAFKA_RESP_ERR_NO_ERROR, let metadata else {
            drainEventsForErrorText()
            throw requestFailure(error, context: "cannot read cluster metadata")
        }
        // The metadata object is ours until rd_kafka_metadata_destroy.
        defer { rd_kafka_metadata_destroy(metadata) }
        guard let topics = metadata.pointee.topics else { return [] }
        return (0..<Int(metadata.pointee.topic_cnt)).compactMap { index in
            let topic = topics[index]
            guard topic.err == RD_KAFKA_RESP_ERR_NO_ERROR, let name = topic.topic else { return nil }
            let replicas = (0..<Int(topic.partition_cnt)).map { Int(topic.partitions[$0].replica_cnt) }
            return KafkaTopicMetadata(
                name: String(cString: name), partitionCount: Int(topic.partition_cnt),
                replicationFactor: replicas.min() ?? 0)
        }
    }

    func createTopics(_ topics: [KafkaNewTopic], timeout: Duration) throws(KafkaError) -> [KafkaTopicCreationResult] {
        var newTopics: [OpaquePointer?] = []
        // Each NewTopic is ours until destroyed below; CreateTopics copies what it needs.
        defer { for topic in newTopics { rd_kafka_NewTopic_destroy(topic) } }
        for topic in topics {
            var errorText = [CChar](repeating: 0, count: 512)
            guard
                let newTopic = rd_kafka_NewTopic_new(
                    topic.name, Int32(clamping: topic.partitions), Int32(clamping: topic.replicationFactor),
                    &errorText, errorText.count
                )
            else {
                throw .configuration("invalid topic \(topic.name): \(String(cCharBuffer: errorText))")
            }
            newTopics.append(newTopic)
            for (name, value) in topic.configs.sorted(by: { $0.key < $1.key }) {
                let error = rd_kafka_NewTopic_set_config(newTopic, name, value)
                guard error == RD_KAFKA_RESP_ERR_NO_ERROR else {
                    throw .rdKafka(error, context: "invalid config \(name) for topic \(topic.name)")
                }
            }
        }
        let results = try adminCall(.createTopics, timeout: timeout) { options, queue in
            newTopics.withUnsafeMutableBufferPointer {
                rd_kafka_CreateTopics(handle, $0.baseAddress, $0.count, options, queue)
            }
        }
        return results.map { name, error in
            switch error?.code {
            case nil: KafkaTopicCreationResult(name: name, outcome: .created)
            case .topicAlreadyExists?: KafkaTopicCreationResult(name: name, outcome: .alreadyExists)
            case .some: KafkaTopicCreationResult(name: name, outcome: .failed(error!))
            }
        }
    }

    /// Deletes topics; the result maps each name to its error, or `nil` when it was deleted.
    func deleteTopics(_ names: [String], timeout: Duration) throws(KafkaError) -> [String: KafkaError?] {
        var deleteTopics: [OpaquePointer?] = names.map { rd_kafka_DeleteTopic_new($0) }
        // Each DeleteTopic is ours until destroyed below.
        defer { for topic in deleteTopics { rd_kafka_DeleteTopic_destroy(topic) } }
        let results = try adminCall(.deleteTopics, timeout: timeout) { options, queue in
            deleteTopics.withUnsafeMutableBufferPointer {
                rd_kafka_DeleteTopics(handle, $0.baseAddress, $0.count, options, queue)
            }
        }
        return Dictionary(results.map { ($0.name, $0.error) }, uniquingKeysWith: { first, _ in first })
    }

    /// While an admin call blocked the loop thread, connection errors queued up unread; reading
    /// them (admin clients act on no other event) gives the failure librdkafka's real reason.
    private func drainEventsForErrorText() {
        for _ in 0..<1_000 {
            guard poll(timeoutMilliseconds: 0) != nil else { return }
        }
    }

    /// The settings of each topic, as the brokers report them (DescribeConfigs); a topic the
    /// cluster does not have maps to a failure with `.unknownTopic`. Sensitive values, which
    /// brokers do not disclose, are left out.
    func topicConfigs(
        _ names: [String], timeout: Duration
    ) throws(KafkaError) -> [String: Result<[String: String], KafkaError>] {
        var resources: [OpaquePointer?] = names.map { rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_TOPIC, $0) }
        // Each ConfigResource is ours until destroyed below; DescribeConfigs copies what it needs.
        defer { for resource in resources { rd_kafka_ConfigResource_destroy(resource) } }
        return try adminRequest(.describeConfigs, timeout: timeout) { options, queue in
            resources.withUnsafeMutableBufferPointer {
                rd_kafka_DescribeConfigs(handle, $0.baseAddress, $0.count, options, queue)
            }
        } read: { event in
            var count = 0
            // The result resources belong to the event.
            guard
                let results = rd_kafka_DescribeConfigs_result_resources(
                    rd_kafka_event_DescribeConfigs_result(event), &count)
            else { return [:] }
            var answers: [String: Result<[String: String], KafkaError>] = [:]
            for index in 0..<count {
                guard let resource = results[index] else { continue }
                let name = String(cString: rd_kafka_ConfigResource_name(resource))
                let code = rd_kafka_ConfigResource_error(resource)
                guard code == RD_KAFKA_RESP_ERR_NO_ERROR else {
                    let detail = rd_kafka_ConfigResource_error_string(resource).map { String(cString: $0) }
                    answers[name] = .failure(.rdKafka(code, context: "cannot describe topic \(name)", detail: detail))
                    continue
                }
                var entryCount = 0
                var configs: [String: String] = [:]
                if let entries = rd_kafka_ConfigResource_configs(resource, &entryCount) {
                    for entryIndex in 0..<entryCount {
                        guard let entry = entries[entryIndex], let value = rd_kafka_ConfigEntry_value(entry) else {
                            continue
                        }
                        configs[String(cString: rd_kafka_ConfigEntry_name(entry))] = String(cString: value)
                    }
                }
                answers[name] = .success(configs)
            }
            return answers
        }
    }

    private enum AdminOperation {
        case createTopics, deleteTopics, describeConfigs

        var api: rd_kafka_admin_op_t {
            switch self {
            case .createTopics: RD_KAFKA_ADMIN_OP_CREATETOPICS
            case .deleteTopics: RD_KAFKA_ADMIN_OP_DELETETOPICS
            case .describeConfigs: RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS
            }
        }

        var context: String {
            switch self {
            case .createTopics: "cannot create topics"
            case .deleteTopics: "cannot delete topics"
            case .describeConfigs: "cannot describe topic configurations"
            }
        }
    }

    /// Runs one admin request and reads its per-topic results.
    private func adminCall(
        _ operation: AdminOperation,
        timeout: Duration,
        start: (OpaquePointer?, OpaquePointer?) -> Void
    ) throws(KafkaError) -> [(name: String, error: KafkaError?)] {
        try adminRequest(operation, timeout: timeout, start: start) { event in
            var count = 0
            let topicResults: UnsafeMutablePointer<OpaquePointer?>?
            switch operation {
            case .createTopics:
                topicResults = rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(event), &count)
            case .deleteTopics:
                topicResults = rd_kafka_DeleteTopics_result_topics(rd_kafka_event_DeleteTopics_result(event), &count)
            case .describeConfigs:
                topicResults = nil
            }
            guard let topicResults else { return [] }
            return (0..<count).compactMap { index in
                guard let result = topicResults[index] else { return nil }
                let name = String(cString: rd_kafka_topic_result_name(result))
                let code = rd_kafka_topic_result_error(result)
                guard code != RD_KAFKA_RESP_ERR_NO_ERROR else { return (name, nil) }
                let detail = rd_kafka_topic_result_error_string(result).map { String(cString: $0) }
                return (name, KafkaError.rdKafka(code, context: "\(operation.context) \(name)", detail: detail))
            }
        }
    }

    /// Runs one admin request and hands its result event to `read` (the event is destroyed after
    /// it returns). Options and the result queue are created and destroyed here.
    private func adminRequest<Answer>(
        _ operation: AdminOperation,
        timeout: Duration,
        start: (OpaquePointer?, OpaquePointer?) -> Void,
        read: (OpaquePointer) -> Answer
    ) throws(KafkaError) -> Answer {
        let options = rd_kafka_AdminOptions_new(handle, operation.api)
        defer { rd_kafka_AdminOptions_destroy(options) }
        var errorText = [CChar](repeating: 0, count: 512)
        _ = rd_kafka_AdminOptions_set_request_timeout(options, timeout.timeoutMilliseconds, &errorText, errorText.count)
        _ = rd_kafka_AdminOptions_set_operation_timeout(
            options, timeout.timeoutMilliseconds, &errorText, errorText.count)
        guard let queue = rd_kafka_queue_new(handle) else { throw .shutdown("cannot create an admin result queue") }
        defer { rd_kafka_queue_destroy(queue) }
        start(options, queue)
        // librdkafka always posts a result by the request timeout; the margin covers scheduling.
        let wait = (timeout + .seconds(5)).timeoutMilliseconds
        guard let event = rd_kafka_queue_poll(queue, wait) else {
            throw .timedOut("\(operation.context): no answer within \(timeout)")
        }
        defer { rd_kafka_event_destroy(event) }
        let error = rd_kafka_event_error(event)
        guard error == RD_KAFKA_RESP_ERR_NO_ERROR else {
            let text = rd_kafka_event_error_string(event).map { String(cString: $0) }
            drainEventsForErrorText()
            throw requestFailure(error, context: operation.context, fallback: text)
        }
        return read(event)
    }
}
