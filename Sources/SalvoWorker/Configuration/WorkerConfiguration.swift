import SalvoAPNs
import SalvoKafka

/// Everything a worker runs with, as typed values: what `salvo worker --config FILE` reads (YAML
/// plus `SALVO_*` environment overrides) and what tests build directly.
///
/// Each part carries its own defaults and range checks; ``validate()`` runs them all, so a
/// worker refuses to start on a bad value instead of failing in the middle of a campaign.
public struct WorkerConfiguration: Sendable {
    /// Brokers, client id and any librdkafka property (`properties`), passed through unchanged.
    public var kafka: KafkaClientConfiguration
    /// librdkafka properties for the lane consumers only (e.g. `session.timeout.ms`), applied
    /// after `kafka.properties`. Default: empty.
    public var kafkaConsumerProperties: [String: String] = [:]
    /// librdkafka properties for the feedback/DLQ/retry producer only (e.g. `linger.ms`), applied
    /// after `kafka.properties`. Default: empty.
    public var kafkaProducerProperties: [String: String] = [:]
    /// How often each lane consumer commits its done watermarks (and at once on revoke and
    /// drain). After a crash the next owner re-sends what completed since the last commit, so
    /// this bounds duplicates to about this much sending. Default: 250 ms.
    public var commitInterval: Duration = .milliseconds(250)
    /// How often each partition's checkpoint (its complete offsets beyond the commit and its open
    /// jobs' done notifications) is written to the progress topic, when it moved. Shorter than the
    /// commit interval because a checkpoint is one small record per partition. Default: 100 ms.
    public var checkpointInterval: Duration = .milliseconds(100)
    /// A partition's checkpoint is also written as soon as one of its jobs finished this many
    /// notifications since the last one, so a burst is covered before the interval passes.
    /// Default: 250.
    public var checkpointNotifications = 250
    /// The most notifications of one job that may have been taken for sending without an
    /// acknowledged checkpoint naming them done: what a crash can make the next owner send again.
    /// A job that reaches it waits (counted in `salvo_checkpoint_waits_total`) until Kafka
    /// acknowledges a checkpoint. nil: the dispatch window plus four times
    /// ``checkpointNotifications`` (3,200 with the default pool of 2 × 1,000 streams).
    public var maximumUnconfirmedSends: Int?
    /// How long a revoke waits for the in-flight requests of the partitions it takes away to be
    /// answered (and their records acknowledged) before it commits and gives them up: what is
    /// still in flight after it, the next owner may send again. Default: 5 s.
    public var revokeWait: Duration = .seconds(5)
    /// While offset commits fail (the broker or coordinator unreachable), the worker stops taking
    /// and dispatching new work once this many notifications completed without being committed:
    /// losing the assignment then re-sends at most this many (plus the in-flight window).
    /// Default: 10,000.
    public var maximumUncommittedNotifications = 10_000
    /// How the group spreads partitions (`kafka.assignment_strategy`). `cooperative-sticky`
    /// revokes only the partitions that move; Tansu (the test broker) cannot run it. Default: `range`.
    public var assignmentStrategy: KafkaAssignmentStrategy = .range
    /// Where a lane consumer starts on a partition its group has no committed offset for
    /// (`kafka.start_from`). nil (the default) starts at records up to ``defaultStartAge`` old
    /// and refuses to start a group that has no committed offsets at all while its topics hold
    /// older records: a mistyped `group_id` must not re-send old campaigns
    /// (docs/decisions/new-group-start.md). A value set is the operator's decision, not checked.
    public var startFrom: KafkaStartPosition?
    /// How old a record may be for a partition without commits to start at it when
    /// `kafka.start_from` is left out, and the age beyond which a new group's backlog stops the
    /// start. 1 h.
    public static let defaultStartAge: Duration = .seconds(3_600)

    /// The start position the lane consumers use.
    public var startPosition: KafkaStartPosition { startFrom ?? .newerThan(Self.defaultStartAge) }
    /// Consumer group shared by every worker of a deployment. Default: `salvo-worker`.
    public var groupID: String
    public var topics: WorkerTopics
    /// Apps by the name jobs use in their `app` field.
    public var apps: [String: WorkerApp]
    /// Weights of the per-user and campaign lanes, and how much each may queue.
    public var lanes: LaneConfiguration
    /// Backoff, batching and the memory bound of in-process retries.
    public var retry: RetryScheduler.Configuration
    /// Attempts and replays before dead-lettering.
    public var outcomes: OutcomeClassifier.Configuration
    /// When an APNs pool is unhealthy (a brownout or outage) and how it probes its way back.
    public var poolHealth = PoolHealthConfiguration()
    /// Per device token: a runaway producer cannot storm one device; over-limit sends wait.
    /// Default: 10/s, burst 20. nil disables it.
    public var deviceRateLimit: RateLimit?
    /// Largest job message, in bytes. A rejected job is dead-lettered whole, so the limit stays
    /// 16 KiB below the producer's `message.max.bytes` (the loader checks it). Default: 983,616
    /// (librdkafka's default `message.max.bytes` of 1,000,000 less 16 KiB).
    public var maximumJobBytes: Int
    /// Most tokens in one job. Default: 500,000.
    public var maximumTokens: Int
    /// `/metrics`, `/health/live` and `/health/ready`; nil disables the listener.
    /// Default: 127.0.0.1:9100 (bind 0.0.0.0 explicitly in containers).
    public var operations: WorkerOperationsListener?
    /// SIGTERM: how long to finish in-flight work, hand the rest to the retry topic and commit
    /// before exiting anyway. Keep it below the orchestrator's grace period. Default: 25 s.
    public var drainDeadline: Duration

    public init(
        kafka: KafkaClientConfiguration,
        groupID: String = "salvo-worker",
        topics: WorkerTopics = WorkerTopics(),
        apps: [String: WorkerApp],
        lanes: LaneConfiguration = LaneConfiguration(),
        retry: RetryScheduler.Configuration = RetryScheduler.Configuration(),
        outcomes: OutcomeClassifier.Configuration = OutcomeClassifier.Configuration(),
        deviceRateLimit: RateLimit? = RateLimit(perSecond: 10, burst: 20),
        maximumJobBytes: Int = 1_000_000 - 16_384,
        maximumTokens: Int = 500_000,
        operations: WorkerOperationsListener? = WorkerOperationsListener(),
        drainDeadline: Duration = .seconds(25)
    ) {
        self.kafka = kafka
        self.groupID = groupID
        self.topics = topics
        self.apps = apps
        self.lanes = lanes
        self.retry = retry
        self.outcomes = outcomes
        self.deviceRateLimit = deviceRateLimit
        self.maximumJobBytes = maximumJobBytes
        self.maximumTokens = maximumTokens
        self.operations = operations
        self.drainDeadline = drainDeadline
    }

    /// The job decoder's view: app profiles and size limits.
    package var decoder: JobDecoder.Configuration {
        JobDecoder.Configuration(
            apps: apps.mapValues(\.profile), maximumJobBytes: maximumJobBytes, maximumTokens: maximumTokens)
    }

    /// Runs every part's checks; the first failure names the YAML key of the setting and the rule
    /// it breaks, also for a configuration built in code.
    public func validate() throws(SalvoWorkerError) {
        guard !kafka.brokers.isEmpty else { throw .invalidConfiguration("kafka.brokers: list at least one host:port") }
        guard !groupID.isEmpty else { throw .invalidConfiguration("group_id: must not be empty") }
        guard !apps.isEmpty else { throw .invalidConfiguration("apps: configure at least one app") }
        guard apps.count <= ConfigurationBounds.apps.upperBound else {
            throw .invalidConfiguration("apps: \(ConfigurationBounds.tooManyApps(apps.count))")
        }
        try topics.validate()
        for (name, app) in apps.sorted(by: { $0.key < $1.key }) {
            try app.validate(name: name)
        }
        try decoder.validate()
        try lanes.validate()
        try retry.validate()
        try outcomes.validate()
        try poolHealth.validate()
        try ConfigurationBounds.commitInterval.check(commitInterval, key: "kafka.commit_interval")
        try ConfigurationBounds.checkpointInterval.check(checkpointInterval, key: "kafka.checkpoint_interval")
        try ConfigurationBounds.checkpointNotifications.check(
            checkpointNotifications, key: "kafka.checkpoint_notifications")
        if let maximumUnconfirmedSends {
            try ConfigurationBounds.maximumUnconfirmedSends.check(
                maximumUnconfirmedSends, key: "kafka.max_unconfirmed_sends")
        }
        try ConfigurationBounds.revokeWait.check(revokeWait, key: "kafka.revoke_wait")
        try ConfigurationBounds.maximumUncommitted.check(
            maximumUncommittedNotifications, key: "kafka.max_uncommitted_notifications")
        try deviceRateLimit?.validate("device_rate_limit")
        try ConfigurationBounds.drainDeadline.check(drainDeadline, key: "drain_deadline")
    }
}

/// Where the worker serves `/metrics` and its health checks.
public struct WorkerOperationsListener: Sendable, Hashable {
    public var host: String
    /// 0 picks a free port (tests).
    public var port: Int

    public init(host: String = "127.0.0.1", port: Int = 9100) {
        self.host = host
        self.port = port
    }
}
