import Logging
import SalvoPrimitives

/// Reads the oldest record of every partition of some topics, without a consumer group, to say
/// how much and how old a backlog is — what a group with no committed offsets would face.
///
/// The oldest record is fetched rather than asked for by time: ListOffsets answers are not
/// trusted here (Tansu answers a time after every record with offset 0, and its "latest" with
/// the last batch's base offset + 1); the fetch's own high watermark is.
public enum KafkaBacklog {
    /// One entry per partition that holds a record; empty partitions are left out. Fails with
    /// `.unknownTopic` when a topic does not exist, `.timedOut` when a partition does not answer
    /// within `timeout`.
    public static func oldestRecords(
        of topics: [String],
        client: KafkaClientConfiguration,
        timeout: Duration = .seconds(15),
        logger: Logger = Logger(label: "salvo.kafka.backlog")
    ) async throws(KafkaError) -> [KafkaPartitionBacklog] {
        try client.validate()
        guard !topics.isEmpty else { return [] }
        var properties = KafkaTopicReader.properties(client, fetchWait: .milliseconds(50), logLevel: logger.logLevel)
        // One record per partition is all it needs: a small prefetch, however large the backlog.
        properties["queued.max.messages.kbytes"] = "1024"
        properties["fetch.max.bytes"] = "1048576"
        properties["max.partition.fetch.bytes"] = "65536"
        let rdKafkaClient = try RDKafkaClient.make(
            kind: .consumer, properties: properties, events: RDKafkaClient.consumerEvents, logger: logger)
        let loop = RDKafkaLoop(client: rdKafkaClient, name: "salvo-kafka-backlog")
        let delegate = RDKafkaPlainDelegate()
        loop.start(delegate: delegate)
        let result: Result<[KafkaPartitionBacklog], KafkaError>
        do {
            result = .success(
                try await loop.submit { client throws(KafkaError) in
                    try client.oldestRecords(of: topics, timeout: timeout)
                })
        } catch {
            result = .failure(error)
        }
        await delegate.stop(loop)
        return try result.get()
    }
}

extension RDKafkaClient {
    /// Assigns every partition at its beginning and takes entries until each gave its first
    /// record or its end-of-partition marker. Blocking: the loop thread only.
    fileprivate func oldestRecords(of topics: [String], timeout: Duration) throws(KafkaError) -> [KafkaPartitionBacklog]
    {
        let metadata = try self.topics(timeout: timeout)
        var partitions: [KafkaTopicPartition] = []
        for topic in topics {
            guard let found = metadata.first(where: { $0.name == topic }) else {
                throw KafkaError(code: .unknownTopic, message: "topic \(topic) does not exist")
            }
            partitions += (0..<Int32(clamping: found.partitionCount)).map {
                KafkaTopicPartition(topic: topic, partition: $0)
            }
        }
        try readFromBeginning(partitions)
        var pending = Set(partitions)
        var found: [KafkaPartitionBacklog] = []
        let deadline = ContinuousClock.now + timeout
        while !pending.isEmpty {
            guard ContinuousClock.now < deadline else {
                throw .timedOut(
                    "reading the oldest records of \(pending.sorted().map(\.description).joined(separator: ", "))")
            }
            for entry in takePartitionEntries(limit: 256, timeoutMilliseconds: 100) {
                switch entry {
                case .message(let message) where pending.contains(message.topicPartition):
                    pending.remove(message.topicPartition)
                    found.append(
                        KafkaPartitionBacklog(
                            topicPartition: message.topicPartition, oldestOffset: message.offset,
                            oldestTimestampMilliseconds: message.timestampMilliseconds,
                            highWatermark: cachedHighWatermark(message.topicPartition) ?? message.offset + 1))
                case .endOfPartition(let partition):
                    pending.remove(partition)
                case .message, .error:
                    break
                }
            }
        }
        return found.sorted { $0.topicPartition < $1.topicPartition }
    }
}
