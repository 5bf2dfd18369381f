import CRdKafka

extension KafkaError {
    /// The one checked-call helper: turns an `rd_kafka_resp_err_t` into a typed error that keeps
    /// librdkafka's name and text, with `detail` (e.g. the errstr buffer or a broker's message)
    /// appended when it says more than the generic text.
    static func rdKafka(
        _ error: rd_kafka_resp_err_t,
        context: String,
        detail: String? = nil,
        isFatal: Bool = false,
        file: String = #fileID,
        line: Int = #line
    ) -> KafkaError {
        let name = String(cString: rd_kafka_err2name(error))
        let text = String(cString: rd_kafka_err2str(error))
        var message = "\(context): \(text)"
        if let detail, !detail.isEmpty, detail != text {
            message += " (\(detail))"
        }
        return KafkaError(
            code: isFatal ? .fatal : code(for: error),
            message: message,
            rdKafkaErrorName: name,
            rdKafkaErrorCode: error.rawValue,
            isRetriable: !isFatal && retriable.contains(error),
            isFatal: isFatal || error == RD_KAFKA_RESP_ERR__FATAL,
            file: file,
            line: line
        )
    }

    /// Reads an `rd_kafka_error_t`, then destroys it (the caller hands over ownership).
    static func consuming(
        _ error: OpaquePointer,
        context: String,
        file: String = #fileID,
        line: Int = #line
    ) -> KafkaError {
        defer { rd_kafka_error_destroy(error) }
        var result = rdKafka(
            rd_kafka_error_code(error),
            context: context,
            detail: String(cString: rd_kafka_error_string(error)),
            isFatal: rd_kafka_error_is_fatal(error) != 0,
            file: file,
            line: line
        )
        result.isRetriable = rd_kafka_error_is_retriable(error) != 0
        return result
    }

    private static func code(for error: rd_kafka_resp_err_t) -> Code {
        switch error {
        case RD_KAFKA_RESP_ERR__TRANSPORT, RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN, RD_KAFKA_RESP_ERR__RESOLVE,
            RD_KAFKA_RESP_ERR__AUTHENTICATION, RD_KAFKA_RESP_ERR__SSL, RD_KAFKA_RESP_ERR_NETWORK_EXCEPTION:
            .brokerUnavailable
        case RD_KAFKA_RESP_ERR__TIMED_OUT, RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT, RD_KAFKA_RESP_ERR__MSG_TIMED_OUT,
            RD_KAFKA_RESP_ERR__TIMED_OUT_QUEUE:
            .timedOut
        case RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART, RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC,
            RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION:
            .unknownTopic
        case RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS:
            .topicAlreadyExists
        case RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE, RD_KAFKA_RESP_ERR_RECORD_LIST_TOO_LARGE,
            RD_KAFKA_RESP_ERR_INVALID_MSG, RD_KAFKA_RESP_ERR_INVALID_RECORD, RD_KAFKA_RESP_ERR__INVALID_ARG,
            RD_KAFKA_RESP_ERR_INVALID_MSG_SIZE, RD_KAFKA_RESP_ERR_POLICY_VIOLATION:
            .messageRejected
        case RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED, RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED,
            RD_KAFKA_RESP_ERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED:
            .unauthorized
        case RD_KAFKA_RESP_ERR__FATAL:
            .fatal
        case RD_KAFKA_RESP_ERR__DESTROY, RD_KAFKA_RESP_ERR__PURGE_QUEUE, RD_KAFKA_RESP_ERR__PURGE_INFLIGHT:
            .shutdown
        default:
            .broker
        }
    }

    /// Errors after which the same request may succeed: broker moves, timeouts, full queues,
    /// coordinator changes. Kafka marks these retriable in its protocol specification.
    private static let retriable: Set<rd_kafka_resp_err_t> = [
        RD_KAFKA_RESP_ERR__TRANSPORT, RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN, RD_KAFKA_RESP_ERR__RESOLVE,
        RD_KAFKA_RESP_ERR__TIMED_OUT, RD_KAFKA_RESP_ERR__MSG_TIMED_OUT, RD_KAFKA_RESP_ERR__TIMED_OUT_QUEUE,
        RD_KAFKA_RESP_ERR__QUEUE_FULL, RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT, RD_KAFKA_RESP_ERR_NETWORK_EXCEPTION,
        RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART, RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION,
        RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE, RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION,
        RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS, RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS_AFTER_APPEND,
        RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS, RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE,
        RD_KAFKA_RESP_ERR_NOT_COORDINATOR, RD_KAFKA_RESP_ERR_REBALANCE_IN_PROGRESS,
        RD_KAFKA_RESP_ERR_ILLEGAL_GENERATION, RD_KAFKA_RESP_ERR_UNKNOWN_MEMBER_ID,
        RD_KAFKA_RESP_ERR__WAIT_COORD, RD_KAFKA_RESP_ERR_KAFKA_STORAGE_ERROR,
    ]
}
