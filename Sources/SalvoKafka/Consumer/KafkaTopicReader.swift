import Logging
import SalvoPrimitives

/// Reads every partition of one topic from the beginning and then follows it live, without a
/// consumer group: each reader sees every record (the way each worker must see every campaign
/// control command), nothing is committed and nobody is rebalanced.
///
/// Meant for small topics that every process reads whole, such as compacted state topics. The
/// handler runs on the reader's own thread (never on librdkafka's), one event at a time; keep it
/// short. "Caught up" comes from librdkafka's partition-EOF events, which compare the fetch
/// position with the high watermark of the Fetch response: the broker's latest-offset answer is
/// not used because Tansu's is wrong (DESIGN.md, "What does not").
///
/// ```swift
/// let reader = try KafkaTopicReader(topic: "salvo.control", client: client) { event in … }
/// try await reader.start()
/// …
/// await reader.close()
/// ```
public final class KafkaTopicReader: Sendable {
    public let topic: String
    private let loop: RDKafkaLoop
    private let delegate: Delegate

    /// - Parameters:
    ///   - fetchWait: How long the broker may hold an idle fetch (`fetch.wait.max.ms`): the bound
    ///     on how late a new record is seen when the broker does not answer early. Default: 100 ms.
    ///   - handler: Receives the records, `.caughtUp` once, and errors, on the reader's thread.
    public init(
        topic: String,
        client: KafkaClientConfiguration,
        fetchWait: Duration = .milliseconds(100),
        logger: Logger = Logger(label: "salvo.kafka.reader"),
        handler: @escaping @Sendable (KafkaTopicReaderEvent) -> Void
    ) throws(KafkaError) {
        try client.validate()
        guard !topic.isEmpty else { throw .configuration("the topic to read must be named") }
        guard fetchWait >= .milliseconds(1), fetchWait <= .seconds(10) else {
            throw .configuration("fetch wait must be within 1 ms…10 s")
        }
        let rdKafkaClient = try RDKafkaClient.make(
            kind: .consumer,
            properties: Self.properties(client, fetchWait: fetchWait, logLevel: logger.logLevel),
            events: RDKafkaClient.consumerEvents,
            logger: logger
        )
        self.topic = topic
        self.loop = RDKafkaLoop(client: rdKafkaClient, name: "salvo-kafka-reader")
        self.delegate = Delegate(handler: handler)
        loop.start(delegate: delegate)
    }

    deinit {
        delegate.plain.requestStop()
        loop.wake()
    }

    /// Looks the topic up and starts reading all its partitions from the beginning. Returns the
    /// partition count. Fails with `.unknownTopic` when the cluster does not have the topic.
    /// Partitions added later are not read (Kafka cannot add partitions without moving keys, and
    /// Salvo's compacted topics are never grown).
    @discardableResult
    public func start(timeout: Duration = .seconds(10)) async throws(KafkaError) -> Int {
        let topic = topic
        let delegate = delegate
        return try await loop.submit { client throws(KafkaError) in
            guard let metadata = try client.topics(timeout: timeout).first(where: { $0.name == topic }) else {
                throw KafkaError(
                    code: .unknownTopic, message: "topic \(topic) does not exist (salvo topics create makes it)")
            }
            let partitions = (0..<Int32(clamping: metadata.partitionCount)).map {
                KafkaTopicPartition(topic: topic, partition: $0)
            }
            guard delegate.expect(partitions) else {
                throw KafkaError(code: .configuration, message: "the reader of \(topic) was started already")
            }
            // Their records (and end markers) go to the client's message queue, which the
            // delegate consumes.
            try client.readFromBeginning(partitions)
            return partitions.count
        }
    }

    /// Stops reading and releases the client. No handler call starts after it returns.
    public func close() async {
        await delegate.plain.stop(loop)
    }

    /// A group id is set only because librdkafka's consumer will not start without one; with
    /// `assign` and no commits it is never sent to the broker. Partition EOF marks "caught up".
    static func properties(
        _ client: KafkaClientConfiguration, fetchWait: Duration, logLevel: Logger.Level
    ) -> [String: String] {
        var properties = RDKafkaConfig.clientProperties(client, logLevel: logLevel)
        properties.merge([
            "group.id": "salvo-reader-\(UInt64.random(in: 0...UInt64.max))",
            "enable.auto.commit": "false",
            "enable.auto.offset.store": "false",
            "enable.partition.eof": "true",
            "auto.offset.reset": "earliest",
            "fetch.wait.max.ms": String(fetchWait.wholeMilliseconds),
        ]) { _, typed in typed }
        return properties.merging(client.properties) { _, raw in raw }
    }
}
