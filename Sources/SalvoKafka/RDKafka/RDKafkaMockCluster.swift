import CRdKafka

/// librdkafka's in-process mock cluster (`rdkafka_mock.h`): real Kafka protocol listeners on
/// 127.0.0.1 served by a librdkafka thread. It needs an `rd_kafka_t` to own it; the client
/// passed in must outlive it.
final class RDKafkaMockCluster: @unchecked Sendable {
    // @unchecked: the pointer is immutable; the mock cluster locks internally, and `destroy()`
    // is called once, by the owning loop thread, before its client is destroyed.

    private let cluster: OpaquePointer
    /// The `host:port,...` list clients connect to.
    let bootstrapServers: String

    init(owner: RDKafkaClient, brokers: Int) throws(KafkaError) {
        guard let cluster = rd_kafka_mock_cluster_new(owner.handle, Int32(clamping: brokers)) else {
            throw .configuration("librdkafka could not start a mock cluster with \(brokers) broker(s)")
        }
        self.cluster = cluster
        self.bootstrapServers = String(cString: rd_kafka_mock_cluster_bootstraps(cluster))
    }

    /// The mock cluster does not implement the CreateTopics admin API; this is its own way.
    func createTopic(_ name: String, partitions: Int, replicationFactor: Int) throws(KafkaError) {
        let error = rd_kafka_mock_topic_create(
            cluster, name, Int32(clamping: partitions), Int32(clamping: replicationFactor)
        )
        guard error == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw .rdKafka(error, context: "cannot create mock topic \(name)")
        }
    }

    /// Answers the next `count` requests of Kafka protocol API `apiKey`, from any client, with
    /// `error` instead of serving them.
    func pushRequestErrors(apiKey: Int16, error: rd_kafka_resp_err_t, count: Int) {
        var errors = Array(repeating: error, count: count)
        errors.withUnsafeMutableBufferPointer { errors in
            rd_kafka_mock_push_request_errors_array(cluster, apiKey, errors.count, errors.baseAddress)
        }
    }

    /// Drops the errors still queued for `apiKey`.
    func clearRequestErrors(apiKey: Int16) {
        rd_kafka_mock_clear_request_errors(cluster, apiKey)
    }

    /// Stops the listeners and joins the mock thread.
    func destroy() {
        rd_kafka_mock_cluster_destroy(cluster)
    }
}

extension KafkaEmbeddedCluster.InjectedError {
    var rdKafkaError: rd_kafka_resp_err_t {
        switch self {
        case .rebalanceInProgress: RD_KAFKA_RESP_ERR_REBALANCE_IN_PROGRESS
        case .illegalGeneration: RD_KAFKA_RESP_ERR_ILLEGAL_GENERATION
        }
    }
}
