import Logging

/// Topic administration and cluster metadata.
///
/// Every request blocks only the admin client's own thread. Producers can make brokers
/// auto-create a topic by naming it, so callers that must not create topics by accident check
/// `topic(named:)` first: it reads the metadata of all topics, which never creates one.
public final class KafkaAdmin: Sendable {
    private let loop: RDKafkaLoop
    private let delegate: RDKafkaPlainDelegate

    public init(
        configuration: KafkaClientConfiguration,
        logger: Logger = Logger(label: "salvo.kafka.admin")
    ) throws(KafkaError) {
        try configuration.validate()
        let client = try RDKafkaClient.make(
            kind: .producer,
            properties: RDKafkaConfig.adminProperties(configuration, logLevel: logger.logLevel),
            events: RDKafkaClient.adminEvents,
            logger: logger
        )
        loop = RDKafkaLoop(client: client, name: "salvo-kafka-admin")
        delegate = RDKafkaPlainDelegate()
        loop.start(delegate: delegate)
    }

    deinit {
        delegate.requestStop()
        loop.wake()
    }

    /// Every topic in the cluster. Fails with `.brokerUnavailable` or `.timedOut` (carrying
    /// librdkafka's reason, e.g. "Connection refused") when no broker answers within `timeout`.
    public func topics(timeout: Duration = .seconds(10)) async throws(KafkaError) -> [KafkaTopicMetadata] {
        try await loop.submit { client throws(KafkaError) in
            try client.topics(timeout: timeout)
        }
    }

    /// The topic's metadata, or `nil` if the cluster does not have it.
    public func topic(
        named name: String, timeout: Duration = .seconds(10)
    ) async throws(KafkaError) -> KafkaTopicMetadata? {
        try await topics(timeout: timeout).first { $0.name == name }
    }

    /// Creates topics; existing ones are reported as `.alreadyExists`, not thrown.
    public func createTopics(
        _ topics: [KafkaNewTopic],
        timeout: Duration = .seconds(30)
    ) async throws(KafkaError) -> [KafkaTopicCreationResult] {
        guard !topics.isEmpty else { return [] }
        return try await loop.submit { client throws(KafkaError) in
            try client.createTopics(topics, timeout: timeout)
        }
    }

    /// Each topic's settings as the brokers report them (`cleanup.policy`, `retention.ms`, …),
    /// defaults included. A topic the cluster does not have maps to a `.unknownTopic` failure. A
    /// broker that does not implement DescribeConfigs fails the whole call, or answers a topic
    /// without its settings (an empty map): callers must treat both as "not verified".
    public func topicConfigs(
        _ names: [String],
        timeout: Duration = .seconds(10)
    ) async throws(KafkaError) -> [String: Result<[String: String], KafkaError>] {
        guard !names.isEmpty else { return [:] }
        return try await loop.submit { client throws(KafkaError) in
            try client.topicConfigs(names, timeout: timeout)
        }
    }

    /// Deletes topics. Throws the first per-topic failure; with `ignoreMissing`, topics that do
    /// not exist are not a failure.
    public func deleteTopics(
        _ names: [String],
        ignoreMissing: Bool = true,
        timeout: Duration = .seconds(30)
    ) async throws(KafkaError) {
        guard !names.isEmpty else { return }
        let results = try await loop.submit { client throws(KafkaError) in
            try client.deleteTopics(names, timeout: timeout)
        }
        for name in names {
            guard let error = results[name] ?? nil else { continue }
            if ignoreMissing, error.code == .unknownTopic { continue }
            throw error
        }
    }

    /// Releases the client. Later calls fail with `.shutdown`.
    public func close() async {
        await delegate.stop(loop)
    }
}
