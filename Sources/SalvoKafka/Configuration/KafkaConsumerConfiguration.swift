/// Settings of a `KafkaConsumer` in a consumer group with manual offset management.
///
/// Auto commit and auto offset store are always off: offsets are committed only up to the
/// contiguous done watermark (see `KafkaOffsetTracker`). Buffering is bounded at both levels:
/// Salvo's hand-over buffer (`bufferCapacity`) stops taking messages from librdkafka when full,
/// and librdkafka then stops fetching once its prefetch queue holds `prefetchMaxKilobytes` or
/// `prefetchMinMessages`. Memory stays bounded without pausing partitions (which would make
/// librdkafka drop and re-fetch its prefetch); pausing is left to the application.
public struct KafkaConsumerConfiguration: Sendable, Hashable {
    public var client: KafkaClientConfiguration
    /// The consumer group. Required.
    public var groupID: String
    /// Topics to subscribe to. Required.
    public var topics: [String]
    /// Where to start on partitions without a committed offset. Default: `.earliest`.
    public var offsetReset: KafkaOffsetReset
    /// Where to start on an assigned partition the group has no committed offset for; `.latest`
    /// and the time-based positions are looked up at assignment (`offsetReset` still applies when
    /// a stored offset is out of range). Default: `.earliest`.
    public var startPosition: KafkaStartPosition = .earliest
    /// How long the group coordinator waits for a heartbeat before evicting this member.
    /// Default: 45 s (Kafka's default). Tests use 6 s: a first join takes about half of it.
    public var sessionTimeout: Duration
    /// Default: 3 s. Must be well below `sessionTimeout`.
    public var heartbeatInterval: Duration
    /// The longest the poll thread may go between polls before the member is considered stuck.
    /// Salvo's poll thread never blocks on the application, so the default rarely matters.
    /// Default: 300 s.
    public var maxPollInterval: Duration
    /// Default: `.range` (supported by every broker Salvo is tested on).
    public var assignmentStrategy: KafkaAssignmentStrategy
    /// How often advanced done watermarks are committed. Default: 1 s.
    public var commitInterval: Duration
    /// Messages waiting in Salvo's hand-over buffer before the poll thread stops taking more
    /// from librdkafka; it starts again when the buffer is half empty. Default: 1,000.
    public var bufferCapacity: Int
    /// librdkafka's prefetch bound in KiB (`queued.max.messages.kbytes`). Default: 8,192 (8 MiB).
    public var prefetchMaxKilobytes: Int
    /// librdkafka's prefetch target in messages (`queued.min.messages`). Default: 10,000.
    public var prefetchMinMessages: Int
    /// How long librdkafka waits before fetching again once its prefetch queue was full
    /// (`fetch.queue.backoff.ms`, librdkafka ≥ 2.1; older versions ignore it). librdkafka's own
    /// default of 1 s stalls a consumer that drains a bounded prefetch quickly. Default: 10 ms.
    public var prefetchBackoff: Duration
    /// How long `close()` may take to commit and leave the group. Default: 30 s.
    public var closeTimeout: Duration
    /// Whether messages carry their key and headers. An application that reads only values turns
    /// it off: each message then costs two allocations and a header parse less (`key` is nil and
    /// `headers` empty). Default: true.
    public var readsKeysAndHeaders = true
    /// Raw librdkafka properties for consumers only, applied after `client.properties`: consumer
    /// tuning set here does not reach producers, which would warn that they ignore it.
    /// Default: empty.
    public var properties: [String: String] = [:]

    public init(client: KafkaClientConfiguration, groupID: String, topics: [String]) {
        self.client = client
        self.groupID = groupID
        self.topics = topics
        self.offsetReset = .earliest
        self.sessionTimeout = .seconds(45)
        self.heartbeatInterval = .seconds(3)
        self.maxPollInterval = .seconds(300)
        self.assignmentStrategy = .range
        self.commitInterval = .seconds(1)
        self.bufferCapacity = 1_000
        self.prefetchMaxKilobytes = 8_192
        self.prefetchMinMessages = 10_000
        self.prefetchBackoff = .milliseconds(10)
        self.closeTimeout = .seconds(30)
    }

    /// The one validation place for consumer settings.
    func validate() throws(KafkaError) {
        try client.validate()
        guard !groupID.isEmpty else { throw .configuration("consumer group id must not be empty") }
        guard !topics.isEmpty, topics.allSatisfy({ !$0.isEmpty }) else {
            throw .configuration("consumer needs at least one non-empty topic name")
        }
        guard heartbeatInterval < sessionTimeout else {
            throw .configuration(
                "heartbeat interval (\(heartbeatInterval)) must be below the session timeout (\(sessionTimeout))")
        }
        guard commitInterval >= .milliseconds(1) else { throw .configuration("commit interval must be positive") }
        guard bufferCapacity >= 1 else { throw .configuration("buffer capacity must be at least 1") }
        guard prefetchMaxKilobytes >= 1 else { throw .configuration("prefetch bound must be at least 1 KiB") }
        guard prefetchMinMessages >= 1 else { throw .configuration("prefetch target must be at least 1 message") }
        guard prefetchBackoff >= .zero else { throw .configuration("prefetch backoff must not be negative") }
        guard closeTimeout >= .zero else { throw .configuration("close timeout must not be negative") }
        if case .newerThan(let age) = startPosition, age <= .zero {
            throw .configuration("a start position by age needs a positive age, got \(age)")
        }
    }
}
