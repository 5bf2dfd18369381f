import Logging
import Synchronization

/// A consumer-group member with manual, watermark-based offset management.
///
/// Messages arrive through `messages`, a bounded hand-over buffer fed by a dedicated poll
/// thread; when it fills up, the thread stops taking messages and librdkafka's bounded prefetch
/// stops fetching, so nothing is buffered further. `pause` holds partitions back on purpose
/// (for example while their downstream is saturated). Call `markDone` when a message is fully processed, in any order: offsets
/// are committed (every `commitInterval`, on `commitNow`, before partitions are revoked, and on
/// `close`) only up to the contiguous-done watermark, so nothing unfinished is ever committed.
///
/// ```swift
/// let consumer = try KafkaConsumer(configuration: config, logger: logger)
/// for try await message in consumer.messages {
///     try await handle(message)
///     consumer.markDone(message)
/// }
/// try await consumer.close()
/// ```
public final class KafkaConsumer: Sendable {
    private let core: Core
    /// Assignment changes, newest 256 kept if nobody listens. Finishes when the consumer closed.
    public let assignmentChanges: AsyncStream<KafkaAssignmentChange>

    /// Creates the consumer and subscribes; the group is joined in the background.
    /// - Parameter observer: Told about rebalances and commits (for metrics).
    /// - Parameter revokeBarrier: Waited for before revoked partitions are committed and given up.
    public init(
        configuration: KafkaConsumerConfiguration,
        logger: Logger = Logger(label: "salvo.kafka.consumer"),
        observer: KafkaConsumerObserver = .none,
        revokeBarrier: KafkaRevokeBarrier? = nil
    ) throws(KafkaError) {
        try configuration.validate()
        let client = try RDKafkaClient.make(
            kind: .consumer,
            properties: RDKafkaConfig.consumerProperties(configuration, logLevel: logger.logLevel),
            events: RDKafkaClient.consumerEvents,
            readsKeysAndHeaders: configuration.readsKeysAndHeaders,
            logger: logger
        )
        do {
            try client.subscribe(configuration.topics)
        } catch {
            client.destroy()
            throw error
        }
        let (stream, continuation) = AsyncStream.makeStream(
            of: KafkaAssignmentChange.self,
            bufferingPolicy: .bufferingNewest(256)
        )
        self.assignmentChanges = stream
        self.core = Core(
            client: client, configuration: configuration, assignmentContinuation: continuation, observer: observer,
            revokeBarrier: revokeBarrier, logger: logger)
        core.loop.start(delegate: core)
    }

    deinit {
        core.requestClose()
    }

    public var configuration: KafkaConsumerConfiguration { core.configuration }

    /// The received messages. Several tasks may iterate concurrently; each message goes to one.
    /// Iteration ends after `close()`, and throws if the client hit a fatal error.
    public var messages: KafkaConsumerMessages {
        KafkaConsumerMessages(core: core)
    }

    /// Marks a message processed. Unknown or revoked partitions and repeated calls are ignored.
    @discardableResult
    public func markDone(_ message: KafkaConsumerMessage) -> KafkaOffsetTracker.MarkResult {
        core.markDone(message.offset, in: message.topicPartition)
    }

    /// Marks the message at `offset` of `partition` processed.
    @discardableResult
    public func markDone(_ partition: KafkaTopicPartition, offset: Int64) -> KafkaOffsetTracker.MarkResult {
        core.markDone(offset, in: partition)
    }

    /// What is done beyond the commit in `partitions` (every tracked partition when nil): the
    /// offsets received since the last commit, and which of them are still open.
    public func progress(of partitions: [KafkaTopicPartition]? = nil) -> [KafkaTopicPartition: KafkaPartitionProgress] {
        core.progress(of: partitions)
    }

    /// Commits every advanced done watermark now and returns once the broker stored them.
    public func commitNow() async throws(KafkaError) {
        try await core.commitNow()
    }

    /// Stops delivery of these partitions at once (buffered messages are held back) and stops
    /// fetching them shortly after. Their assignment is kept.
    public func pause(_ partitions: [KafkaTopicPartition]) {
        core.pause(partitions)
    }

    /// Pauses every current and future partition until `resumeAll()`.
    public func pauseAll() {
        core.pause(nil)
    }

    public func resume(_ partitions: [KafkaTopicPartition]) {
        core.resume(partitions)
    }

    /// Lifts `pauseAll()` and every partition pause.
    public func resumeAll() {
        core.resume(nil)
    }

    /// The partitions currently assigned to this member.
    public var assignment: Set<KafkaTopicPartition> {
        core.shared.withLock { $0.machine.assignment }
    }

    /// Per assigned partition: the cached high watermark and the done watermark.
    public func lag() async throws(KafkaError) -> [KafkaPartitionLag] {
        let offsets = core.shared.withLock { $0.machine.committableOffsets() }
        return try await core.loop.submit { client in
            offsets.keys.sorted().map { partition in
                KafkaPartitionLag(
                    topicPartition: partition,
                    highWatermark: client.cachedHighWatermark(partition),
                    committableOffset: offsets[partition] ?? nil
                )
            }
        }
    }

    /// The group's committed offsets as the coordinator has them (`nil`: nothing committed).
    public func committedOffsets(
        for partitions: [KafkaTopicPartition],
        timeout: Duration = .seconds(10)
    ) async throws(KafkaError) -> [KafkaTopicPartition: Int64?] {
        try await core.loop.submit { client throws(KafkaError) in
            try client.committed(partitions, timeout: timeout)
        }
    }

    /// Stops delivering, commits the done watermarks, leaves the group and releases the client.
    /// Messages buffered but not yet handed out are left for the next owner.
    public func close() async throws(KafkaError) {
        try await core.close()
    }
}
