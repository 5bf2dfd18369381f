import DequeModule
import Logging
import Metrics
import NIOCore
import SalvoAPNs
import SalvoKafka

/// The worker's dispatch core: lanes, rate limits, the retry scheduler and its timer, the job
/// ledger, the pools' health and the in-flight window, all confined to one event loop — the loop
/// the APNs pools run on, so outcomes arrive here with no hop and nothing on the per-notification
/// path takes a lock or allocates beyond the request.
///
/// Consumer tasks hand it decoded records (``accept(_:resume:)``), the pools hand it outcomes, the
/// publisher hands it Kafka acknowledgements. Split by concern: `+Intake` (records in, revokes),
/// `+Dispatch` (pump, rate limits, batches), `+Outcomes` (the retry matrix's actions), `+Health` (brownouts: parking and probing),
/// `+Records` (feedback, dead letters, retry hand-offs and their acknowledgements), `+Drain`
/// (graceful shutdown), `+Timer` (everything due later), `+Campaigns` (cancel, pause, resume).
///
/// Generic over its clock, with the pools and the producer behind seams (``WorkerDispatchPool``,
/// the `publisher` closure), so its tests drive time by hand on an `EmbeddedEventLoop`.
final class WorkerCore<C: Clock> where C.Duration == Duration {
    enum Phase {
        case running
        /// No new slots from the lanes; replays still go out; due retries go to the retry topic.
        case draining
        /// Drain finished or timed out: outcomes and timers are ignored.
        case finished
    }

    /// One pool with its health and the work parked while it is unhealthy. Outcomes find it by
    /// index (the submit closure carries it), so no key is hashed per notification.
    struct PoolSlot {
        let key: WorkerPoolKey
        let pool: any WorkerDispatchPool
        var health: PoolHealth<C>
        var parked: Deque<DispatchItem> = []
        /// Counted in ``unhealthyPools`` (unhealthy or probing).
        var wasUnhealthy = false
    }

    /// Lets a consumer task pull again (the engine resumes a continuation with it).
    typealias Resume = @Sendable () -> Void

    let eventLoop: any EventLoop
    let configuration: WorkerConfiguration
    let classifier: OutcomeClassifier
    let logger: Logger
    let metrics: WorkerMetrics
    let clock: C

    var scheduler: LaneScheduler<DispatchUnit>
    var appLimiter: AppRateLimiter<C>
    var deviceLimiter: DeviceRateLimiter<C>?
    /// `deviceLimiter != nil`, asked per send: testing the optional of a struct holding a
    /// `C.Instant` goes through runtime metadata (~55 instructions).
    let limitsDevices: Bool
    /// Whether any rate limit (an app's or the device one) is configured. Without one, which is
    /// the default, a send skips the limiters: asking them cost ~210 instructions per
    /// notification (the `Duration` comparisons are calls into the standard library).
    let limitsSends: Bool
    /// Notifications waiting after a retryable answer (attempt already increased).
    var retries: RetryScheduler.StateMachine<C>
    /// Sends a rate limit delayed: not an attempt, so they come back as they went.
    var delayedSends: RetryScheduler.StateMachine<C>
    var ledger = JobLedger()
    /// Records whose ledger entry is a rejected job (counted as rejected, not completed).
    var rejectedSources: Set<SourcePosition> = []

    var slots: [PoolSlot]
    let slotIndex: [WorkerPoolKey: Int]
    /// Pools not healthy now: while 0, dispatch never looks at health.
    var unhealthyPools = 0
    /// Notifications parked in unhealthy pools' slots.
    var parkedCount = 0
    /// In flight, delayed, held and parked work stays below this: the pools' stream credit plus a
    /// small buffer. Held work counts, so a brownout stops intake instead of draining partitions
    /// into memory (and then into the dead-letter topic).
    let window: Int
    /// In flight stays below this while per-user pushes are being sent: the window while the
    /// round trip shows no queueing, less when answers queue (``AdaptiveWindow``,
    /// `lanes.queue_delay_target`). Campaigns alone use the whole window: a deeper queue batches
    /// better and only per-user pushes wait for it.
    var flightLimit: AdaptiveWindow<C.Instant>
    /// Per-user work was queued or dispatched within the last second (set by each pump).
    var latencySensitive = false
    var priorityDispatchedAt: C.Instant?
    var inFlight = 0
    /// Replays and due retries, dispatched before new lane slots, without rate limits.
    var ready: Deque<DispatchItem> = []
    var pumpScheduled = false
    /// A refill deferred until a batch's worth of the window is free (``scheduleRefill()``).
    var refillTask: Scheduled<Void>?
    /// Free window slots that make an outcome refill at once: an eighth of the window, at most 256.
    let refillBatch: Int

    var timer: Scheduled<Void>?
    var timerDeadline: C.Instant?
    var laneWaiters: [Lane: [Resume]] = [:]
    /// Consumer tasks waiting for the records queue to the producer to empty below half its bound.
    var recordWaiters: [Resume] = []

    let publisher: @Sendable (PendingRecord) -> Void
    /// Records handed to the publisher and not yet acknowledged (or abandoned).
    var pendingRecords = 0
    let markDone: @Sendable (SourcePosition) -> Void
    /// Repeated warnings (records Kafka refuses) are logged once per kind, then summarised.
    var warnings = LogThrottle<C>()

    let checkpoints: CheckpointAccess
    /// The checkpoint last written per partition, and when checkpoints are next due.
    var writtenCheckpoints: [SourcePosition.Partition: JobCheckpoint] = [:]
    var checkpointsDueAt: C.Instant
    /// Partitions whose revoke began (``revoking(_:done:)``) and has not finished.
    /// Closed while commits fail and too much completed work is uncommitted.
    var commitGate: CommitGate
    /// ``JobLedger/notificationsCompleted`` as last counted into the gate.
    var notificationsCounted = 0
    /// Consumer tasks waiting for the commit gate to open.
    var commitWaiters: [Resume] = []
    /// The gate's state as last logged and counted.
    var commitGateReportedClosed = false
    /// When each lane consumer's last commit succeeded (or the core started).
    var lastCommitSucceeded: [C.Instant]
    var revokingPartitions: Set<SourcePosition.Partition> = []
    var revokeWaiters: [RevokeWaiter] = []
    var revokeCheckTask: Scheduled<Void>?

    var phase = Phase.running
    var drainPromise: EventLoopPromise<Void>?
    var drainDeadlineTask: Scheduled<Void>?
    var heldHandedOff = false

    /// Campaign commands in force, paused campaigns' work, resumed work waiting for its turn and
    /// per-campaign counts (`+Campaigns`).
    var control = CampaignControlState()
    var holds: CampaignHoldQueue<PushNotification, C.Instant>
    var pausedJobs: PausedJobs<C.Instant>
    var resumed: Deque<PushNotification> = []
    var campaignProgress = CampaignProgressLedger()
    /// Broadcast jobs' sender and counts (`+Broadcast`).
    var broadcasts = BroadcastDispatch()

    var statistics = WorkerStatistics()
    /// Where snapshots go (the engine's lock-protected copy).
    let sharedStatistics: @Sendable (WorkerStatistics) -> Void
    var statisticsTask: Scheduled<Void>?

    init(
        configuration: WorkerConfiguration,
        pools: [WorkerPoolKey: any WorkerDispatchPool],
        clock: C,
        eventLoop: any EventLoop,
        publisher: @escaping @Sendable (PendingRecord) -> Void,
        markDone: @escaping @Sendable (SourcePosition) -> Void,
        sharedStatistics: @escaping @Sendable (WorkerStatistics) -> Void,
        checkpoints: CheckpointAccess = .none,
        logger: Logger
    ) throws(SalvoWorkerError) {
        self.checkpoints = checkpoints
        self.eventLoop = eventLoop
        self.clock = clock
        self.configuration = configuration
        self.classifier = try OutcomeClassifier(configuration: configuration.outcomes)
        self.metrics = WorkerMetrics(topics: configuration.topics)
        self.logger = logger
        self.scheduler = try LaneScheduler(configuration: configuration.lanes)
        var limits: [String: RateLimit] = [:]
        for (name, app) in configuration.apps { limits[name] = app.rateLimit }
        self.appLimiter = try AppRateLimiter(configuration: AppRateLimiter.Configuration(limits: limits))
        let now = clock.now
        self.checkpointsDueAt = now.advanced(by: configuration.checkpointInterval)
        self.deviceLimiter = try configuration.deviceRateLimit.map { limit throws(SalvoWorkerError) in
            try DeviceRateLimiter(configuration: DeviceRateLimiter.Configuration(limit: limit), now: now)
        }
        self.limitsDevices = configuration.deviceRateLimit != nil
        self.limitsSends = self.limitsDevices || configuration.apps.values.contains { $0.rateLimit != nil }
        self.retries = try RetryScheduler.StateMachine(configuration: configuration.retry, now: now)
        // Rate-limit delays are bounded by the window (delayed sends count against it), not by
        // the retry hand-off bound: handing them to the retry topic would only churn.
        var delayedConfiguration = configuration.retry
        delayedConfiguration.maximumHeldDelay = Self.maximumRateLimitDelay
        self.delayedSends = try RetryScheduler.StateMachine(configuration: delayedConfiguration, now: now)
        let keys = pools.keys.sorted { ($0.app, $0.environment.rawValue) < ($1.app, $1.environment.rawValue) }
        self.slots = keys.map {
            PoolSlot(key: $0, pool: pools[$0]!, health: PoolHealth(configuration: configuration.poolHealth))
        }
        self.slotIndex = Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, $0) })
        self.commitGate = CommitGate(bound: configuration.maximumUncommittedNotifications)
        self.holds = CampaignHoldQueue(
            capacity: configuration.retry.maximumHeldNotifications, maximumHold: configuration.retry.maximumHeldDelay)
        self.pausedJobs = PausedJobs(
            capacity: configuration.retry.maximumHeldNotifications, maximumHold: configuration.retry.maximumHeldDelay)
        self.lastCommitSucceeded = Array(repeating: now, count: CommitGate.Consumer.allCases.count)
        self.window = Self.window(configuration)
        self.refillBatch = max(1, min(256, self.window / 8))
        self.flightLimit = AdaptiveWindow(maximum: self.window, target: configuration.lanes.queueDelayTarget)
        self.publisher = publisher
        self.markDone = markDone
        self.sharedStatistics = sharedStatistics
        for slot in slots { metrics.poolHealthy(slot.key, true) }
    }

    /// The stream credit of every pool (connections × streams) plus a buffer of 10 % (at least
    /// 64, at most the credit itself), so a round of outcomes never leaves the connections idle
    /// while the next batch is built. The buffer waits in the pools' queues and counts as in
    /// flight: a revoke waits for it and a crash re-sends it, so a small pool (a slow gateway, a
    /// test) keeps a small one.
    static func window(_ configuration: WorkerConfiguration) -> Int {
        var credit = 0
        for app in configuration.apps.values {
            credit += app.endpoints.count * app.pool.connectionCount * app.pool.maximumStreamsPerConnection
        }
        return credit + min(credit, max(64, credit / 10))
    }

    func start() {
        scheduleStatistics()
    }

    private func scheduleStatistics() {
        // Strong captures throughout this type's scheduled tasks: a weakly referenced object takes
        // the slow path on every retain and release for the rest of its life, and this one is
        // retained per notification. Each task is cancelled when the core finishes (or fires).
        statisticsTask = eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(50)) {
            guard self.statisticsTask != nil else { return }
            self.publishStatistics()
            self.checkCommitsOverdue()
            self.writeCheckpointsIfDue()
            for summary in self.warnings.dueSummaries(now: self.clock.now) { self.logger.log(summary) }
            self.scheduleStatistics()
        }
    }

    // MARK: Ledger

    /// A notification of `job` is terminal; `records` records it caused were enqueued.
    func notificationFinished(_ notification: PushNotification, records: Int = 0) {
        let job = notification.job
        ledgerAction(
            ledger.notificationFinished(
                job.source, generation: job.ledgerGeneration, records: records, index: notification.index))
    }

    func ledgerAction(_ action: JobLedger.Action) {
        guard case .completed(let source) = action else { return }
        markDone(source)
        let completed = ledger.notificationsCompleted - notificationsCounted
        notificationsCounted = ledger.notificationsCompleted
        commitGate.completed(completed, consumer: source.topic == configuration.topics.priority ? .priority : .campaign)
        // Usually empty: no hashing per completed job then.
        if rejectedSources.isEmpty || rejectedSources.remove(source) == nil {
            statistics.jobsCompleted += 1
            metrics.job(lane: metricsLane(of: source.topic), result: .completed)
        }
    }

    /// A lane consumer's offset commit finished (on the consumer's thread, hopped here). The gate
    /// may have closed since the last report (completions while commits fail) or open now (a
    /// success): intake and dispatch stop or resume.
    func commitFinished(_ consumer: CommitGate.Consumer, succeeded: Bool) {
        _ = commitGate.commitFinished(consumer, succeeded: succeeded)
        if succeeded { lastCommitSucceeded[consumer.rawValue] = clock.now }
        reportCommitGate(consumer)
    }

    /// How long without a successful commit, with the bound reached, before commits count as
    /// failing: eight commit intervals, at least 2 s (a commit waiting on a silent coordinator
    /// otherwise reports only at librdkafka's request timeout).
    var commitOverdue: Duration { max(.seconds(2), configuration.commitInterval * 8) }

    /// From the statistics timer: a consumer with the bound of uncommitted work reached and no
    /// successful commit for ``commitOverdue`` closes the gate.
    func checkCommitsOverdue() {
        let now = clock.now
        for consumer in CommitGate.Consumer.allCases where commitGate.uncommitted(consumer) >= commitGate.bound {
            guard lastCommitSucceeded[consumer.rawValue].duration(to: now) > commitOverdue else { continue }
            commitGate.commitOverdue(consumer)
            reportCommitGate(consumer)
        }
    }

    /// Logs, counts and acts on a change of the gate since the last report.
    func reportCommitGate(_ consumer: CommitGate.Consumer) {
        let closed = commitGate.isClosed
        metrics.commitGateClosed.record(closed ? 1 : 0)
        guard closed != commitGateReportedClosed else { return }
        commitGateReportedClosed = closed
        if closed {
            statistics.commitGateClosures += 1
            logger.warning(
                "offset commits failing: taking no new work until a commit succeeds",
                metadata: ["uncommitted": "\(commitGate.uncommitted(consumer))", "bound": "\(commitGate.bound)"])
            return
        }
        logger.info("offset commits succeed again: taking new work")
        let waiters = commitWaiters
        commitWaiters = []
        for waiter in waiters { waiter() }
        schedulePump()
    }

    func metricsLane(of topic: String) -> MetricsLane {
        if topic == configuration.topics.priority { return .priority }
        if topic == configuration.topics.retry { return .retry }
        return .campaign
    }

    // MARK: Statistics

    func publishStatistics() {
        statistics.inFlight = inFlight
        statistics.flightLimit = flightLimit.limit
        statistics.queued = scheduler.queuedNotifications(in: .priority) + scheduler.queuedNotifications(in: .campaign)
        statistics.retryDepth = retries.heldCount
        statistics.delayed = delayedSends.heldCount
        statistics.parked = parkedCount
        statistics.held = holds.count + pausedJobs.notificationCount + resumed.count
        statistics.unhealthyPools = unhealthyPools
        statistics.pendingRecords = pendingRecords
        metrics.inFlight.record(inFlight)
        metrics.flightLimit.record(flightLimit.limit)
        metrics.retryDepth.record(statistics.retryDepth)
        metrics.parked.record(parkedCount)
        metrics.delayed.record(delayedSends.heldCount)
        for lane in Lane.allCases { metrics.queued(scheduler.queuedNotifications(in: lane), lane: lane) }
        metrics.flushDelivered()
        sharedStatistics(statistics)
    }
}
