import DequeModule
import Logging
import Metrics
import NIOCore
import SalvoAPNs
import SalvoKafka

/// The worker's dispatch core, confined to one event loop — the loop the APNs pools run on, so
/// outcomes arrive here with no hop and nothing on the per-notification path takes a lock or
/// allocates beyond the request.
///
/// An executor over state machines: each decision lives in a value type with private state that
/// takes an event and returns what to do (``DispatchWindow``: the window and the flight limit;
/// ``CommitControl``: the commit gate and revokes; ``CoreLifecycle``: running, draining, finished;
/// ``CampaignControl``: cancel, pause, resume; ``RecordBacklog``, ``CheckpointSchedule``,
/// ``SendLimits``), beside the parts they drive (``JobLedger``, ``LaneScheduler``,
/// ``WaitingWork``'s retry schedulers, ``PoolTable``'s ``PoolHealth``). The core feeds them and
/// performs their answers — send, publish, resume a waiter, schedule a task — through its seams
/// (``CoreSeams``). Kept apart so that each decision is tested on its own as a timeline, and the
/// core's own tests check only how they are wired.
///
/// Consumer tasks hand it decoded records (``accept(_:resume:)``), the pools hand it outcomes, the
/// publisher hands it Kafka acknowledgements. Split by concern: `+Intake` (records in), `+Revoke`,
/// `+Dispatch` (pump, rate limits, batches), `+Outcomes` (the retry matrix's actions), `+Health`
/// (brownouts: parking and probing), `+Records` (feedback, dead letters, retry hand-offs and their
/// acknowledgements), `+Drain` (graceful shutdown), `+Timer` (everything due later), `+Campaigns`
/// (cancel, pause, resume), `+Broadcast`, `+Checkpoints`.
///
/// Generic over its clock, with the pools and the producer behind seams (``WorkerDispatchPool``,
/// the `publisher` closure), so its tests drive time by hand on an `EmbeddedEventLoop`.
final class WorkerCore<C: Clock> where C.Duration == Duration {
    /// Lets a consumer task pull again (the engine resumes a continuation with it).
    typealias Resume = @Sendable () -> Void

    let configuration: WorkerConfiguration
    let classifier: OutcomeClassifier
    let metrics: WorkerMetrics

    var scheduler: LaneScheduler<DispatchUnit>
    /// The app and device rate limits (``SendLimits``).
    var limits: SendLimits<C>
    /// Replays, held retries and rate-limit delays (``WaitingWork``).
    var waitingWork: WaitingWork<C>
    var ledger: JobLedger

    /// The APNs pools with their health and parked work.
    var pools: PoolTable<C>
    /// What may be in flight and when a pump runs (``DispatchWindow``).
    var dispatch: DispatchWindow<C.Instant>
    var timers = CoreTimers<C.Instant>()
    var laneWaiters: [Lane: [Resume]] = [:]

    /// Records handed to the publisher and not yet acknowledged, with the consumer tasks waiting
    /// for them (``RecordBacklog``).
    var records = RecordBacklog<Resume, C>()

    /// When job checkpoints are written, and which (``CheckpointSchedule``).
    var checkpointing: CheckpointSchedule<C.Instant>
    /// The commit gate and the revokes under way, with their waiters (``CommitControl``).
    var commits: CommitControl<Resume, C.Instant>
    /// Running, draining or finished (``CoreLifecycle``).
    var lifecycle = CoreLifecycle<EventLoopPromise<Void>, C.Instant>()

    /// Campaign commands in force, paused campaigns' work, resumed work waiting for its turn and
    /// per-campaign counts (``CampaignControl``, performed by `+Campaigns`).
    var campaigns: CampaignControl<C.Instant>
    /// Broadcast jobs' sender and counts (`+Broadcast`).
    var broadcasts = BroadcastDispatch()

    var statistics = WorkerStatistics()
    /// The event loop, the clock, the logger and the closures out to the engine (``CoreSeams``).
    let seams: CoreSeams<C>

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
        self.seams = CoreSeams(
            eventLoop: eventLoop, clock: clock, logger: logger, publish: publisher, markDone: markDone,
            shareStatistics: sharedStatistics)
        self.configuration = configuration
        self.classifier = try OutcomeClassifier(configuration: configuration.outcomes)
        self.metrics = WorkerMetrics(topics: configuration.topics)
        self.ledger = JobLedger(checkpointEvery: checkpoints.topic == nil ? 0 : configuration.checkpointNotifications)
        self.scheduler = try LaneScheduler(configuration: configuration.lanes)
        let now = clock.now
        self.limits = try SendLimits(configuration: configuration, now: now)
        self.checkpointing = CheckpointSchedule(
            access: checkpoints, interval: configuration.checkpointInterval, now: now)
        self.waitingWork = try WaitingWork(
            retry: configuration.retry, maximumRateLimitDelay: Self.maximumRateLimitDelay, now: now)
        self.pools = PoolTable(pools: pools, health: configuration.poolHealth)
        self.commits = CommitControl(
            bound: configuration.maximumUncommittedNotifications, commitInterval: configuration.commitInterval,
            priorityTopic: configuration.topics.priority, now: now)
        self.campaigns = CampaignControl(
            capacity: configuration.retry.maximumHeldNotifications, maximumHold: configuration.retry.maximumHeldDelay)
        self.dispatch = DispatchWindow(
            size: Self.window(configuration), queueDelayTarget: configuration.lanes.queueDelayTarget)
        for slot in self.pools.slots { metrics.poolHealthy(slot.key, true) }
    }

    /// The loop the core and its pools run on (``CoreSeams``).
    var eventLoop: any EventLoop { seams.eventLoop }
    var clock: C { seams.clock }
    var logger: Logger { seams.logger }

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
        timers.statistics = eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(50)) {
            guard self.timers.statistics != nil else { return }
            self.publishStatistics()
            self.checkCommitsOverdue()
            self.writeCheckpointsIfDue()
            for summary in self.records.dueRefusalSummaries(now: self.clock.now) { self.logger.log(summary) }
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
        let source: SourcePosition
        switch action {
        case .none:
            return
        case .checkpointDue(let job):
            writeCheckpoints(.partitions([job.partitionKey]))
            return
        case .completed(let job):
            source = job
        }
        seams.markDone(source)
        commits.onJobCompleted(topic: source.topic, notificationsCompleted: ledger.notificationsCompleted)
        if !ledger.completedWasRejected(source) {
            statistics.jobsCompleted += 1
            metrics.job(lane: metricsLane(of: source.topic), result: .completed)
        }
    }

    /// A lane consumer's offset commit finished (on the consumer's thread, hopped here). The gate
    /// may have closed since the last report (completions while commits fail) or open now (a
    /// success): intake and dispatch stop or resume.
    func commitFinished(_ consumer: CommitGate.Consumer, succeeded: Bool) {
        perform(commits.onCommitFinished(consumer, succeeded: succeeded, now: clock.now))
    }

    /// From the statistics timer: commits that hang count as failing (``CommitControl``).
    func checkCommitsOverdue() {
        for report in commits.onOverdueCheck(now: clock.now) { perform(report) }
    }

    /// Logs, counts and acts on a change of the gate since the last report.
    func perform(_ report: CommitControl<Resume, C.Instant>.GateReport) {
        metrics.commitGateClosed.record(report.closed ? 1 : 0)
        switch report.change {
        case .none:
            return
        case .closed(let uncommitted, let bound):
            statistics.commitGateClosures += 1
            logger.warning(
                "offset commits failing: taking no new work until a commit succeeds",
                metadata: ["uncommitted": "\(uncommitted)", "bound": "\(bound)"])
        case .opened(let waiters):
            logger.info("offset commits succeed again: taking new work")
            for waiter in waiters { waiter() }
            schedulePump()
        }
    }

    func metricsLane(of topic: String) -> MetricsLane {
        if topic == configuration.topics.priority { return .priority }
        if topic == configuration.topics.retry { return .retry }
        return .campaign
    }

    // MARK: Statistics

    func publishStatistics() {
        statistics.inFlight = dispatch.inFlight
        statistics.flightLimit = dispatch.flightLimitValue
        statistics.queued = scheduler.queuedNotifications(in: .priority) + scheduler.queuedNotifications(in: .campaign)
        statistics.retryDepth = waitingWork.retries.heldCount
        statistics.delayed = waitingWork.delayedSends.heldCount
        statistics.parked = pools.parkedCount
        statistics.held = campaigns.heldCount
        statistics.unhealthyPools = pools.unhealthy
        statistics.pendingRecords = records.pending
        metrics.inFlight.record(dispatch.inFlight)
        metrics.flightLimit.record(dispatch.flightLimitValue)
        metrics.retryDepth.record(statistics.retryDepth)
        metrics.parked.record(pools.parkedCount)
        metrics.delayed.record(waitingWork.delayedSends.heldCount)
        for lane in Lane.allCases { metrics.queued(scheduler.queuedNotifications(in: lane), lane: lane) }
        metrics.flushDelivered()
        seams.shareStatistics(statistics)
    }
}
