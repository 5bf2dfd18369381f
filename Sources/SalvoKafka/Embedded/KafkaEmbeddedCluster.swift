import Logging

/// An in-process Kafka cluster (librdkafka's mock cluster) for `salvo demo` and fast tests.
///
/// It speaks the Kafka protocol on 127.0.0.1 ports chosen by the system: producers, consumer
/// groups with commits, and metadata work. It keeps only about 5 MiB or 100,000 batches per
/// partition and does not implement the CreateTopics admin API (use `createTopic`), so it is
/// neither a benchmark target nor a stand-in for topic administration.
public final class KafkaEmbeddedCluster: Sendable {
    /// The `host:port,...` list to give clients.
    public let bootstrapServers: String
    private let cluster: RDKafkaMockCluster
    private let loop: RDKafkaLoop
    private let delegate: RDKafkaPlainDelegate

    public init(brokers: Int = 1, logger: Logger = Logger(label: "salvo.kafka.embedded")) throws(KafkaError) {
        guard brokers >= 1 else { throw .configuration("an embedded cluster needs at least one broker") }
        // The owner handle connects nowhere; it only hosts the mock cluster.
        let client = try RDKafkaClient.make(
            kind: .producer,
            properties: ["log.queue": "true", "log_level": String(RDKafkaConfig.syslogLevel(logger.logLevel))],
            events: RDKafkaClient.adminEvents,
            logger: logger
        )
        let cluster: RDKafkaMockCluster
        do {
            cluster = try RDKafkaMockCluster(owner: client, brokers: brokers)
        } catch {
            client.destroy()
            throw error
        }
        self.cluster = cluster
        self.bootstrapServers = cluster.bootstrapServers
        self.loop = RDKafkaLoop(client: client, name: "salvo-kafka-embedded")
        // The cluster must go before the handle that owns it.
        self.delegate = RDKafkaPlainDelegate(beforeDestroy: { cluster.destroy() })
        loop.start(delegate: delegate)
    }

    deinit {
        delegate.requestStop()
        loop.wake()
    }

    /// Bootstrap servers as a list, for `KafkaClientConfiguration(brokers:)`.
    public var brokers: [String] {
        bootstrapServers.split(separator: ",").map(String.init)
    }

    public func createTopic(_ name: String, partitions: Int = 4, replicationFactor: Int = 1) async throws(KafkaError) {
        let cluster = self.cluster
        try await loop.submit { _ throws(KafkaError) in
            try cluster.createTopic(name, partitions: partitions, replicationFactor: replicationFactor)
        }
    }

    /// A request the embedded cluster can be told to refuse (``failRequests(_:with:count:)``).
    public enum FailingRequest: Sendable {
        /// OffsetCommit (protocol API 8).
        case offsetCommit

        var apiKey: Int16 {
            switch self {
            case .offsetCommit: 8
            }
        }
    }

    /// An error the embedded cluster answers refused requests with.
    public enum InjectedError: Sendable {
        /// `REBALANCE_IN_PROGRESS`: what a commit meets while the group rebalances.
        case rebalanceInProgress
        /// `ILLEGAL_GENERATION`: a commit from a generation the group has left.
        case illegalGeneration
    }

    /// Answers the next `count` requests of this kind, from any client, with `error`: faults a
    /// test injects (a commit failing during a rebalance, say).
    public func failRequests(_ request: FailingRequest, with error: InjectedError, count: Int) async {
        let cluster = self.cluster
        try? await loop.submit { _ throws(KafkaError) in
            cluster.pushRequestErrors(apiKey: request.apiKey, error: error.rdKafkaError, count: count)
        }
    }

    /// Stops refusing requests of this kind.
    public func stopFailing(_ request: FailingRequest) async {
        let cluster = self.cluster
        try? await loop.submit { _ throws(KafkaError) in cluster.clearRequestErrors(apiKey: request.apiKey) }
    }

    /// Stops the brokers. Clients still connected see their connections fail.
    public func shutdown() async {
        await delegate.stop(loop)
    }
}
