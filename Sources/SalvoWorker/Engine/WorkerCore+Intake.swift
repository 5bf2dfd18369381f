import Metrics
import NIOCore
import SalvoKafka
import SalvoPrimitives

/// Intake: decoded records from the lanes' consumer tasks, the retry topic's records, and the
/// partitions a rebalance takes away.
extension WorkerCore {
    /// Decoded records from a lane's consumer task, in order. `resume` is resumed once their
    /// lanes have room again (at once, usually): until then the task pulls nothing more, so the
    /// consumer's bounded buffer and librdkafka's bounded prefetch stop fetching.
    func accept(_ records: [DecodedRecord], resume: @escaping Resume) {
        var pause: Duration?
        var fullLane: Lane?
        // Each record is lent from the array's storage: iterating copied it out first (a retain
        // and release of its job, topic and reference strings).
        records.withUnsafeBufferPointer { records in
            for index in records.indices {
                let lane = records[index].lane
                if let recordPause = accept(records[index]) { pause = max(pause ?? .zero, recordPause) }
                if fullLane == nil, !scheduler.hasCapacity(in: lane) { fullLane = lane }
            }
        }
        schedulePump()
        if self.records.isFull, lifecycle.isRunning {
            // Kafka is behind on feedback, dead letters or hand-offs: take nothing more until it
            // catches up (``recordSettled()``), so the queue to the producer stays bounded.
            self.records.onIntakeWaiting(resume)
        } else if broadcasts.isFull, lifecycle.isRunning {
            // As many broadcasts as it holds are in flight or waiting for a retry (``BroadcastDispatch``).
            broadcasts.waiters.append(resume)
        } else if commits.isClosed, lifecycle.isRunning {
            // Commits fail and enough completed work waits for one (``CommitGate``).
            commits.onIntakeWaiting(resume)
        } else if let pause, lifecycle.isRunning {
            // Retries went back to the retry topic for want of memory: pull the next records a
            // little later, so a retry backlog does not spin through Kafka.
            eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(pause.nanoseconds)) { resume() }
        } else if let fullLane, lifecycle.isRunning {
            laneWaiters[fullLane, default: []].append(resume)
        } else {
            resume()
        }
    }

    /// One record; returns how long its consumer should pause (see ``acceptRetry(_:record:)``).
    private func accept(_ record: DecodedRecord) -> Duration? {
        statistics.jobsConsumed += 1
        // Handed over by the consumer task just before its partition's revoke began: the next
        // owner reads it (it stays uncommitted here).
        if commits.isRevoking(record.source.partitionKey) { return nil }
        // Delivered again while still open (a rewind): the open entry will commit it.
        guard !ledger.isOpen(record.source) else { return nil }
        if isCompleteByCheckpoint(record) {
            skipComplete(record)
            return nil
        }
        switch record.content {
        case .rejected(let deadLetter):
            statistics.jobsRejected += 1
            metrics.job(lane: record.metricsLane, result: .rejected)
            let generation = ledger.openingRejected(record.source)
            publishDeadLetter(deadLetter, source: record.source, generation: generation, countsNotification: false)
        case .job(let job):
            return open(job, attempt: 1, record: record)
        case .retry(let retryJob):
            return acceptRetry(retryJob, record: record)
        case .broadcast(let broadcast):
            acceptBroadcast(broadcast, record: record)
        }
        return nil
    }

    /// Whether a partition checkpoint records this record complete: its previous owner finished it
    /// but could not commit past it (an older record still open, or a commit that failed).
    /// Records produced after the newest such checkpoint of their lane are not looked up.
    private func isCompleteByCheckpoint(_ record: DecodedRecord) -> Bool {
        guard let timestamp = record.timestampMilliseconds, timestamp <= checkpoints.newestWrite(record.lane),
            let checkpoint = checkpoints.lookup(record.source.partitionKey)
        else { return false }
        return checkpoint.completes(record.source.offset, timestampMilliseconds: timestamp)
    }

    /// Completes a record its checkpoint recorded complete, sending nothing again.
    private func skipComplete(_ record: DecodedRecord) {
        let notifications: Int
        switch record.content {
        case .job(let job): notifications = job.notificationCount
        case .retry(let retryJob): notifications = retryJob.job.notificationCount
        case .broadcast: notifications = 1
        case .rejected: notifications = 0
        }
        statistics.skippedByCheckpoint += 1
        statistics.resumedFromCheckpoint += notifications
        metrics.skippedJobs.increment()
        metrics.resumedFromCheckpoint.increment(by: notifications)
        ledgerAction(ledger.open(record.source, notifications: 0))
    }

    /// Queues a job in its lane, unless its campaign is stopped (``stoppedDecision(_:)``): a
    /// cancelled one completes at once without sending, a paused one is held. Returns how long
    /// the consumer should pause (paused work that had to go back to the retry topic).
    private func open(_ job: Job, attempt: Int, record: DecodedRecord) -> Duration? {
        let done = resumedRanges(of: job, record: record)
        let decision = stoppedDecision(job.campaignID)
        if decision == .cancel {
            let opened = openLedger(job, record: record, done: done, cancelled: true)
            countCancelled(
                app: job.app, campaignID: job.campaignID, isRetry: attempt > 1,
                count: opened.undone?.reduce(0) { $0 + $1.count } ?? job.notificationCount)
            return nil
        }
        let opened = openLedger(job, record: record, done: done)
        let unit = DispatchUnit(
            job: job, reference: opened.reference, attempt: attempt, metricsLane: record.metricsLane,
            enqueuedAtMilliseconds: record.timestampMilliseconds)
        guard decision == nil else {
            var overflow: [PushNotification] = []
            for range in opened.undone ?? [0..<job.notificationCount]
            where !campaigns.park(PausedJob(unit: unit, range: range), campaignID: job.campaignID ?? "", now: clock.now)
            {
                overflow += unit.notifications(in: range)
            }
            armTimer()
            guard !overflow.isEmpty else { return nil }
            let handedOff = statistics.heldHandedOff
            hold(overflow, now: clock.now)
            return statistics.heldHandedOff > handedOff ? Self.retryBackPressure : nil
        }
        if let undone = opened.undone {
            for range in undone { scheduler.enqueue(unit, range: range, lane: record.lane) }
        } else {
            scheduler.enqueue(unit, notifications: job.notificationCount, lane: record.lane)
        }
        return nil
    }

    /// The notifications of a job of several tokens that its checkpoint recorded done, when the
    /// checkpoint names this very job (its offset and id); none otherwise.
    private func resumedRanges(of job: Job, record: DecodedRecord) -> [Range<Int>] {
        guard job.notificationCount > 1, let checkpoint = checkpoints.lookup(record.source.partitionKey),
            let saved = checkpoint.job(at: record.source.offset, id: job.id)
        else { return [] }
        let done = saved.done.map { $0.clamped(to: 0..<job.notificationCount) }.filter { !$0.isEmpty }
        let skipped = done.reduce(0) { $0 + $1.count }
        statistics.resumedFromCheckpoint += skipped
        metrics.resumedFromCheckpoint.increment(by: skipped)
        return done
    }

    /// Opens the job's ledger entry (less the notifications `done` names), its malformed tokens
    /// counted as records, and dead-letters those tokens (whether the job is sent now or held for
    /// later). `cancelled`: its campaign is cancelled, so it waits for no notification, only for
    /// the dead letters of its malformed tokens. Returns the reference its notifications carry and
    /// the ranges still to send (nil: the whole job, which has one token).
    private func openLedger(
        _ job: Job, record: DecodedRecord, done: [Range<Int>] = [], cancelled: Bool = false
    ) -> (reference: JobReference, undone: [Range<Int>]?) {
        let count = job.notificationCount
        // Only jobs of several tokens keep a checkpoint: a per-user push has nothing to resume.
        let progress = count > 1 ? TokenProgress(jobID: job.id, count: count, done: done) : nil
        let undone = progress?.undoneRanges()
        let left = count - (progress?.doneCount ?? 0)
        let (action, generation) = ledger.opening(
            record.source, notifications: cancelled ? 0 : left, records: job.rejectedTokens.count,
            progress: cancelled ? nil : progress)
        ledgerAction(action)
        let reference = job.reference(source: record.source, ledgerGeneration: generation)
        if !job.rejectedTokens.isEmpty {
            let now = UTCTimestamp.now()
            for rejection in job.rejectedTokens {
                publishDeadLetter(
                    DeadLetterRecord.rejectedToken(rejection, of: job, source: record.source, at: now),
                    source: record.source, generation: reference.ledgerGeneration, countsNotification: true)
            }
            if let campaignID = job.campaignID {
                campaigns.count(
                    .deadLettered(afterSending: false), campaignID: campaignID, times: Int64(job.rejectedTokens.count),
                    at: now)
            }
        }
        return (reference, undone)
    }

    /// A record of the retry topic: due ones join the campaign lane; the others wait in the retry
    /// scheduler until their due time, whatever its distance (only its memory bound applies:
    /// handing a record back to the topic because it is far in the future would only spin).
    /// Returns how long the lane should pause when notifications had to be handed back.
    /// A cancelled campaign's record completes at once, due or not; a paused one's waits like any
    /// other and is held when due (``open(_:attempt:record:)``).
    private func acceptRetry(_ retryJob: RetryJob, record: DecodedRecord) -> Duration? {
        let untilDue = Duration.milliseconds(
            retryJob.dueAt.millisecondsSince1970 - UTCTimestamp.now().millisecondsSince1970)
        guard untilDue > .zero, stoppedDecision(retryJob.job.campaignID) != .cancel else {
            return open(retryJob.job, attempt: retryJob.attempt, record: record)
        }
        let reference = openLedger(retryJob.job, record: record).reference
        let now = clock.now
        let due = now.advanced(by: untilDue)
        let judgedFrom =
            untilDue > configuration.retry.maximumHeldDelay
            ? due.advanced(by: .zero - configuration.retry.maximumHeldDelay) : now
        var handedBack: [PushNotification] = []
        let shared = retryJob.job.shared(reference)
        for index in retryJob.job.tokens.indices {
            let notification = retryJob.job.notification(at: index, shared: shared, attempt: retryJob.attempt)
            switch waitingWork.retries.hold(notification, until: due, now: judgedFrom) {
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

    /// Most records waiting for Kafka's acknowledgement before intake pauses (``RecordBacklog``).
    static var maximumPendingRecords: Int { RecordBacklog<Resume, C>.maximum }
}
