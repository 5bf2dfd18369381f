import DequeModule
import Logging
import NIOCore
import SalvoAPNs

/// The worker's dispatch core: lanes, rate limits, the retry scheduler and its timer, the job
/// ledger and the in-flight window, all confined to one event loop — the loop the APNs pools run
/// on, so outcomes arrive here with no hop and nothing on the per-notification path takes a lock
/// or allocates beyond the request.
///
/// Consumer tasks hand it decoded records (``accept(_:resume:)``), the pools hand it outcomes, the
/// publisher hands it Kafka acknowledgements. Split by concern: `+Dispatch` (pump, rate limits,
/// batches), `+Outcomes` (the retry matrix's actions), `+Records` (feedback, dead letters,
/// retry hand-offs and their acknowledgements), `+Drain` (graceful shutdown).
final class WorkerCore {
    enum Phase {
        case running
        /// No new slots from the lanes; replays still go out; due retries go to the retry topic.
        case draining
        /// Drain finished or timed out: outcomes and timers are ignored.
        case finished
    }

    let eventLoop: any EventLoop
    let configuration: WorkerConfiguration
    let classifier: OutcomeClassifier
    let logger: Logger
    let metrics: WorkerMetrics
    let clock = ContinuousClock()

    var scheduler: LaneScheduler<DispatchUnit>
    var appLimiter: AppRateLimiter<ContinuousClock>
    var deviceLimiter: DeviceRateLimiter<ContinuousClock>?
    /// Notifications waiting after a retryable answer (attempt already increased).
    var retries: RetryScheduler.StateMachine<ContinuousClock>
    /// Sends a rate limit delayed: not an attempt, so they come back as they went.
    var delayedSends: RetryScheduler.StateMachine<ContinuousClock>
    var ledger = JobLedger()
    /// Records whose ledger entry is a rejected job (counted as rejected, not completed).
    var rejectedSources: Set<SourcePosition> = []

    let pools: [WorkerPoolKey: APNsConnectionPool]
    /// In flight plus delayed sends stay below this: the pools' stream credit plus a small buffer.
    let window: Int
    var inFlight = 0
    /// Replays and due retries, dispatched before new lane slots, without rate limits.
    var ready: Deque<DispatchItem> = []
    var pumpScheduled = false
    /// A refill deferred until a batch's worth of the window is free (``scheduleRefill()``).
    var refillTask: Scheduled<Void>?
    /// Free window slots that make an outcome refill at once: an eighth of the window, at most 256.
    let refillBatch: Int

    var timer: Scheduled<Void>?
    var timerDeadline: ContinuousClock.Instant?
    var laneWaiters: [Lane: [CheckedContinuation<Void, Never>]] = [:]

    let publisher: AsyncStream<PendingRecord>.Continuation
    var pendingRecords = 0
    let markDone: @Sendable (SourcePosition) -> Void

    var phase = Phase.running
    var drainPromise: EventLoopPromise<Void>?
    var drainDeadlineTask: Scheduled<Void>?
    var heldHandedOff = false

    var statistics = WorkerStatistics()
    /// Where snapshots go (the engine's lock-protected copy).
    let sharedStatistics: @Sendable (WorkerStatistics) -> Void
    var statisticsTask: Scheduled<Void>?

    init(
        configuration: WorkerConfiguration,
        pools: [WorkerPoolKey: APNsConnectionPool],
        eventLoop: any EventLoop,
        publisher: AsyncStream<PendingRecord>.Continuation,
        markDone: @escaping @Sendable (SourcePosition) -> Void,
        sharedStatistics: @escaping @Sendable (WorkerStatistics) -> Void,
        logger: Logger
    ) throws(SalvoWorkerError) {
        self.eventLoop = eventLoop
        self.configuration = configuration
        self.classifier = try OutcomeClassifier(configuration: configuration.outcomes)
        self.metrics = WorkerMetrics(topics: configuration.topics)
        self.logger = logger
        self.scheduler = try LaneScheduler(configuration: configuration.lanes)
        var limits: [String: RateLimit] = [:]
        for (name, app) in configuration.apps { limits[name] = app.rateLimit }
        self.appLimiter = try AppRateLimiter(configuration: AppRateLimiter.Configuration(limits: limits))
        let now = ContinuousClock.now
        self.deviceLimiter = try configuration.deviceRateLimit.map { limit throws(SalvoWorkerError) in
            try DeviceRateLimiter(configuration: DeviceRateLimiter.Configuration(limit: limit), now: now)
        }
        self.retries = try RetryScheduler.StateMachine(configuration: configuration.retry, now: now)
        self.delayedSends = try RetryScheduler.StateMachine(configuration: configuration.retry, now: now)
        self.pools = pools
        self.window = Self.window(configuration)
        self.refillBatch = max(1, min(256, self.window / 8))
        self.publisher = publisher
        self.markDone = markDone
        self.sharedStatistics = sharedStatistics
    }

    /// The stream credit of every pool (connections × streams) plus a buffer of 10 % (at least
    /// 64), so a round of outcomes never leaves the connections idle while the next batch is built.
    static func window(_ configuration: WorkerConfiguration) -> Int {
        var credit = 0
        for app in configuration.apps.values {
            credit += app.endpoints.count * app.pool.connectionCount * app.pool.maximumStreamsPerConnection
        }
        return credit + max(64, credit / 10)
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
            self.scheduleStatistics()
        }
    }

    // MARK: Intake

    /// Decoded records from a lane's consumer task, in order. `resume` is resumed once their
    /// lanes have room again (at once, usually): until then the task pulls nothing more, so the
    /// consumer's bounded buffer and librdkafka's bounded prefetch stop fetching.
    func accept(_ records: [DecodedRecord], resume: CheckedContinuation<Void, Never>) {
        var pause: Duration?
        var fullLane: Lane?
        for record in records {
            if let recordPause = accept(record) { pause = max(pause ?? .zero, recordPause) }
            if fullLane == nil, !scheduler.hasCapacity(in: record.lane) { fullLane = record.lane }
        }
        schedulePump()
        if let pause, phase == .running {
            // Retries went back to the retry topic for want of memory: pull the next records a
            // little later, so a retry backlog does not spin through Kafka.
            eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(pause.nanoseconds)) { resume.resume() }
        } else if let fullLane, phase == .running {
            laneWaiters[fullLane, default: []].append(resume)
        } else {
            resume.resume()
        }
    }

    /// One record; returns how long its consumer should pause (see ``acceptRetry(_:record:)``).
    private func accept(_ record: DecodedRecord) -> Duration? {
        statistics.jobsConsumed += 1
        // Delivered again while still open (a rewind): the open entry will commit it.
        guard !ledger.isOpen(record.source) else { return nil }
        switch record.content {
        case .rejected(let deadLetter):
            rejectedSources.insert(record.source)
            statistics.jobsRejected += 1
            metrics.job(lane: record.metricsLane, result: .rejected)
            let generation = ledger.opening(record.source, notifications: 0, records: 1).generation
            publishDeadLetter(deadLetter, source: record.source, generation: generation, countsNotification: false)
        case .job(let job):
            open(job, attempt: 1, record: record)
        case .retry(let retryJob):
            return acceptRetry(retryJob, record: record)
        }
        return nil
    }

    private func open(_ job: Job, attempt: Int, record: DecodedRecord) {
        let (action, generation) = ledger.opening(record.source, notifications: job.notificationCount, records: job.rejectedTokens.count)
        ledgerAction(action)
        let reference = job.reference(source: record.source, ledgerGeneration: generation)
        if !job.rejectedTokens.isEmpty {
            let now = UTCTimestamp.now()
            for rejection in job.rejectedTokens {
                publishDeadLetter(
                    DeadLetterRecord.rejectedToken(rejection, of: job, source: record.source, at: now),
                    source: record.source, generation: reference.ledgerGeneration, countsNotification: true)
            }
        }
        let unit = DispatchUnit(
            job: job, reference: reference, attempt: attempt, metricsLane: record.metricsLane,
            enqueuedAtMilliseconds: record.timestampMilliseconds)
        scheduler.enqueue(unit, notifications: job.notificationCount, lane: record.lane)
    }

    /// A record of the retry topic: due ones join the campaign lane; the others wait in the retry
    /// scheduler until their due time, whatever its distance (only its memory bound applies:
    /// handing a record back to the topic because it is far in the future would only spin).
    /// Returns how long the lane should pause when notifications had to be handed back.
    private func acceptRetry(_ retryJob: RetryJob, record: DecodedRecord) -> Duration? {
        let untilDue = Duration.milliseconds(retryJob.dueAt.millisecondsSince1970 - UTCTimestamp.now().millisecondsSince1970)
        guard untilDue > .zero else {
            open(retryJob.job, attempt: retryJob.attempt, record: record)
            return nil
        }
        let (action, generation) = ledger.opening(record.source, notifications: retryJob.job.notificationCount)
        ledgerAction(action)
        let reference = retryJob.job.reference(source: record.source, ledgerGeneration: generation)
        let now = clock.now
        let due = now.advanced(by: untilDue)
        let judgedFrom = untilDue > configuration.retry.maximumHeldDelay ? due.advanced(by: .zero - configuration.retry.maximumHeldDelay) : now
        var handedBack: [PushNotification] = []
        let shared = retryJob.job.shared(reference)
        for index in retryJob.job.tokens.indices {
            let notification = retryJob.job.notification(at: index, shared: shared, attempt: retryJob.attempt)
            switch retries.hold(notification, until: due, now: judgedFrom) {
            case .held(_, let rearm):
                if rearm { armTimer() }
            case .handOff(let batch):
                handedBack += batch.notifications
            }
        }
        guard !handedBack.isEmpty else { return nil }
        handOff(RetryScheduler.StateMachine<ContinuousClock>.Batch(app: retryJob.job.app, due: due, notifications: handedBack))
        return min(untilDue, Self.retryBackPressure)
    }

    /// The longest a lane pauses after handing a not-yet-due retry record back to the topic.
    static let retryBackPressure = Duration.milliseconds(100)

    /// Partitions taken away in a rebalance: their queued work and ledger entries are dropped
    /// (the new owner reads them from the committed offset); in-flight outcomes for them are
    /// ignored by the ledger, also once the partition came back and the job is open again (they
    /// carry the old entry's generation).
    func revoked(_ partitions: Set<SourcePosition.Partition>) {
        guard !partitions.isEmpty else { return }
        ledger.forget { partitions.contains($0.partitionKey) }
        _ = scheduler.removeAll { partitions.contains($0.reference.source.partitionKey) }
    }

    // MARK: Ledger

    /// A notification of `job` is terminal; `records` records it caused were enqueued.
    func notificationFinished(_ job: JobReference, records: Int = 0) {
        ledgerAction(ledger.notificationFinished(job.source, generation: job.ledgerGeneration, records: records))
    }

    func ledgerAction(_ action: JobLedger.Action) {
        guard case .completed(let source) = action else { return }
        markDone(source)
        // Usually empty: no hashing per completed job then.
        if rejectedSources.isEmpty || rejectedSources.remove(source) == nil {
            statistics.jobsCompleted += 1
            metrics.job(lane: metricsLane(of: source.topic), result: .completed)
        }
    }

    func metricsLane(of topic: String) -> MetricsLane {
        if topic == configuration.topics.priority { return .priority }
        if topic == configuration.topics.retry { return .retry }
        return .campaign
    }

    // MARK: Timer

    /// Sets the timer to the earliest deadline of the retry scheduler and the delayed sends.
    func armTimer() {
        let deadline = [retries.nextDeadline, delayedSends.nextDeadline].compactMap { $0 }.min()
        guard let deadline else { return }
        if let timerDeadline, timerDeadline <= deadline, timer != nil { return }
        timer?.cancel()
        timerDeadline = deadline
        let delay = clock.now.duration(to: deadline)
        timer = eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(max(0, delay.nanoseconds))) {
            self.timerFired()
        }
    }

    private func timerFired() {
        timer = nil
        timerDeadline = nil
        guard phase != .finished else { return }
        let now = clock.now
        for batch in retries.collectDue(now: now) { release(batch) }
        for batch in delayedSends.collectDue(now: now) { release(batch) }
        armTimer()
        schedulePump()
    }

    /// Due notifications go out again, except while draining, when they go to the retry topic.
    private func release(_ batch: RetryScheduler.StateMachine<ContinuousClock>.Batch) {
        guard phase == .running else {
            handOff(batch)
            return
        }
        for notification in batch.notifications {
            ready.append(DispatchItem(notification: notification, metricsLane: .retry, enqueuedAtMilliseconds: nil))
        }
    }

    // MARK: Statistics

    func publishStatistics() {
        statistics.inFlight = inFlight
        statistics.queued = scheduler.queuedNotifications(in: .priority) + scheduler.queuedNotifications(in: .campaign)
        statistics.retryDepth = retries.heldCount + delayedSends.heldCount
        metrics.inFlight.record(inFlight)
        metrics.retryDepth.record(statistics.retryDepth)
        for lane in Lane.allCases { metrics.queued(scheduler.queuedNotifications(in: lane), lane: lane) }
        metrics.flushDelivered()
        sharedStatistics(statistics)
    }
}
