import Logging

/// Reads a consumer group's committed offsets without joining the group.
///
/// A `KafkaConsumer` subscribes when it is made, so asking one for a group's offsets makes it a
/// member for a moment: every such look starts a rebalance of the group it looks at (with an
/// eager assignor, every member gives up all its partitions). This client only sends the
/// coordinator an offset fetch, which needs no membership — for tools and tests watching a group
/// that workers are in.
public enum KafkaGroupOffsets {
    /// The committed offset of each partition (`nil`: nothing committed).
    public static func committed(
        group: String,
        partitions: [KafkaTopicPartition],
        client: KafkaClientConfiguration,
        timeout: Duration = .seconds(10),
        logger: Logger = Logger(label: "salvo.kafka.offsets")
    ) async throws(KafkaError) -> [KafkaTopicPartition: Int64?] {
        guard !partitions.isEmpty else { return [:] }
        let settings = KafkaConsumerConfiguration(client: client, groupID: group, topics: partitions.map(\.topic))
        try settings.validate()
        let rdKafkaClient = try RDKafkaClient.make(
            kind: .consumer, properties: RDKafkaConfig.consumerProperties(settings, logLevel: logger.logLevel),
            events: RDKafkaClient.consumerEvents, logger: logger)
        let loop = RDKafkaLoop(client: rdKafkaClient, name: "salvo-kafka-offsets")
        let delegate = RDKafkaPlainDelegate()
        loop.start(delegate: delegate)
        let result: Result<[KafkaTopicPartition: Int64?], KafkaError>
        do {
            result = .success(
                try await loop.submit { client throws(KafkaError) in try client.committed(partitions, timeout: timeout)
                })
        } catch {
            result = .failure(error)
        }
        await delegate.stop(loop)
        return try result.get()
    }
}
