import DequeModule
import Logging
import NIOCore
import SalvoAPNs
import SalvoKafka

/// The worker's dispatch core: lanes, rate limits, the retry scheduler and its timer, the job
/// ledger, the pools' health and the in-flight window, all confined to one event loop — the loop
/// the APNs pools run on, so outcomes arrive here with no hop and nothing on the per-notification
/// path takes a lock or allocates beyond the request.
///
/// Consumer tasks hand it decoded records (``accept(_:resume:)``), the pools hand it outcomes, the
/// publisher hands it Kafka acknowledgements. Split by concern: `+Dispatch` (pump, rate limits,
/// batches), `+Outcomes` (the retry matrix's actions), `+Health` (brownouts: parking and probing),
/// `+Records` (feedback, dead letters, retry hand-offs and their acknowledgements), `+Drain`
/// (graceful shutdown).
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
        pools: [WorkerPoolKey: any WorkerDispatchPool],
        clock: C,
        eventLoop: any EventLoop,
        publisher: @escaping @Sendable (PendingRecord) -> Void,
        markDone: @escaping @Sendable (SourcePosition) -> Void,
        sharedStatistics: @escaping @Sendable (WorkerStatistics) -> Void,
        logger: Logger
    ) throws(SalvoWorkerError) {
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
        self.deviceLimiter = try configuration.deviceRateLimit.map { limit throws(SalvoWorkerError) in
            try DeviceRateLimiter(configuration: DeviceRateLimiter.Configuration(limit: limit), now: now)
        }
        self.retries = try RetryScheduler.StateMachine(configuration: configuration.retry, now: now)
        // Rate-limit delays are bounded by the window (delayed sends count against it), not by
        // the retry hand-off bound: handing them to the retry topic would only churn.
        var delayedConfiguration = configuration.retry
        delayedConfiguration.maximumHeldDelay = Self.maximumRateLimitDelay
        self.delayedSends = try RetryScheduler.StateMachine(configuration: delayedConfiguration, now: now)
        let keys = pools.keys.sorted { ($0.app, $0.environment.rawValue) < ($1.app, $1.environment.rawValue) }
        self.slots = keys.map { PoolSlot(key: $0, pool: pools[$0]!, health: PoolHealth(configuration: configuration.poolHealth)) }
        self.slotIndex = Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, $0) })
        self.window = Self.window(configuration)
        self.refillBatch = max(1, min(256, self.window / 8))
        self.publisher = publisher
        self.markDone = markDone
        self.sharedStatistics = sharedStatistics
        for slot in slots { metrics.poolHealthy(slot.key, true) }
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
            for summary in self.warnings.dueSummaries(now: self.clock.now) { self.logger.log(summary) }
            self.scheduleStatistics()
        }
    }

    // MARK: Intake

    /// Decoded records from a lane's consumer task, in order. `resume` is resumed once their
    /// lanes have room again (at once, usually): until then the task pulls nothing more, so the
    /// consumer's bounded buffer and librdkafka's bounded prefetch stop fetching.
    func accept(_ records: [DecodedRecord], resume: @escaping Resume) {
        var pause: Duration?
        var fullLane: Lane?
        for record in records {
            if let recordPause = accept(record) { pause = max(pause ?? .zero, recordPause) }
            if fullLane == nil, !scheduler.hasCapacity(in: record.lane) { fullLane = record.lane }
        }
        schedulePump()
        if pendingRecords >= Self.maximumPendingRecords, phase == .running {
            // Kafka is behind on feedback, dead letters or hand-offs: take nothing more until it
            // catches up (``recordSettled()``), so the queue to the producer stays bounded.
            recordWaiters.append(resume)
        } else if let pause, phase == .running {
            // Retries went back to the retry topic for want of memory: pull the next records a
            // little later, so a retry backlog does not spin through Kafka.
            eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(pause.nanoseconds)) { resume() }
        } else if let fullLane, phase == .running {
            laneWaiters[fullLane, default: []].append(resume)
        } else {
            resume()
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
        let reference = openLedger(job, record: record)
        let unit = DispatchUnit(
            job: job, reference: reference, attempt: attempt, metricsLane: record.metricsLane,
            enqueuedAtMilliseconds: record.timestampMilliseconds)
        scheduler.enqueue(unit, notifications: job.notificationCount, lane: record.lane)
    }

    /// Opens the job's ledger entry, its malformed tokens counted as records, and dead-letters
    /// those tokens (whether the job is sent now or held for later).
    private func openLedger(_ job: Job, record: DecodedRecord) -> JobReference {
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
        return reference
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
        let reference = openLedger(retryJob.job, record: record)
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
        handOff(RetryScheduler.StateMachine<C>.Batch(app: retryJob.job.app, due: due, notifications: handedBack))
        return min(untilDue, Self.retryBackPressure)
    }

    /// The longest a send waits for a rate limit in memory (the window bounds how many wait).
    static var maximumRateLimitDelay: Duration { .seconds(3_600) }

    /// The longest a lane pauses after handing a not-yet-due retry record back to the topic.
    static var retryBackPressure: Duration { .milliseconds(100) }

    /// Most records (feedback, dead letters, hand-offs) waiting for Kafka's acknowledgement before
    /// intake pauses. Outcomes of work already in flight may still add records past it, so the
    /// queue to the producer holds at most this plus the window (plus a lane batch's dead letters).
    static var maximumPendingRecords: Int { 10_000 }

    /// Partitions taken away in a rebalance: all their work here stops at once — queued in the
    /// lanes, delayed by a rate limit, held for a retry, parked in an unhealthy pool, waiting to
    /// be replayed — and their ledger entries are dropped (the new owner reads them from the
    /// committed offset, and would otherwise send what this worker still held a second time).
    /// In-flight outcomes for them are ignored by the ledger, also once the partition came back
    /// and the job is open again (they carry the old entry's generation).
    func revoked(_ partitions: Set<SourcePosition.Partition>) {
        guard !partitions.isEmpty else { return }
        ledger.forget { partitions.contains($0.partitionKey) }
        _ = scheduler.removeAll { partitions.contains($0.reference.source.partitionKey) }
        let isRevoked: (PushNotification) -> Bool = { partitions.contains($0.job.source.partitionKey) }
        var dropped = retries.removeAll(where: isRevoked) + delayedSends.removeAll(where: isRevoked)
        let readyBefore = ready.count
        ready.removeAll { isRevoked($0.notification) }
        dropped += readyBefore - ready.count
        for index in slots.indices where !slots[index].parked.isEmpty {
            let parkedBefore = slots[index].parked.count
            slots[index].parked.removeAll { isRevoked($0.notification) }
            let removed = parkedBefore - slots[index].parked.count
            parkedCount -= removed
            dropped += removed
        }
        statistics.droppedOnRevoke += dropped
        armTimer()
        schedulePump()
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
        let deadline = [retries.nextDeadline, delayedSends.nextDeadline, nextProbe].compactMap { $0 }.min()
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
        startDueProbes(now: now)
        armTimer()
        schedulePump()
    }

    /// Due notifications go out again, except while draining, when they go to the retry topic.
    func release(_ batch: RetryScheduler.StateMachine<C>.Batch) {
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
        statistics.parked = parkedCount
        statistics.unhealthyPools = unhealthyPools
        statistics.pendingRecords = pendingRecords
        metrics.inFlight.record(inFlight)
        metrics.retryDepth.record(statistics.retryDepth)
        metrics.parked.record(parkedCount)
        for lane in Lane.allCases { metrics.queued(scheduler.queuedNotifications(in: lane), lane: lane) }
        metrics.flushDelivered()
        sharedStatistics(statistics)
    }
}
