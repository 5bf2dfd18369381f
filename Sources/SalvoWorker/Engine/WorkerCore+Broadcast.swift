import NIOCore
import SalvoAPNs
import SalvoKafka
import SalvoPrimitives

/// Broadcast jobs (docs/jobs.md, "Broadcast jobs"): one request each, sent through the engine's
/// ``BroadcastSender`` outside the lanes and pools, settled like a job of one notification.
///
/// - Delivered: the ledger entry completes (the offset commits).
/// - Retryable (429, 5xx, not sent, timed out, connection lost): sent again from memory after the
///   retry backoff (`retry.too_many_requests` for 429, `retry.backoff` otherwise), at most
///   `outcomes.max_attempts` attempts, then dead-lettered (`retries_exhausted`). Not through the
///   retry topic: its records name device tokens. A broadcast waiting here keeps its offset
///   uncommitted, so a crash or a drain leaves it to the next owner (sent again: at least once).
/// - Permanent: dead letter (the job's message), and for `ChannelNotRegistered` a channel event
///   on the feedback topic keyed by channel id; the entry completes once Kafka acknowledged both.
/// - Campaign control: a cancelled campaign's broadcast completes unsent; a paused one's waits
///   (checked again every ``broadcastRecheckInterval``) until resumed or cancelled.
extension WorkerCore {
    /// How often a waiting broadcast (a retry's delay, a paused campaign) looks again at whether
    /// it should still wait: a revoke or a drain gives it up within this.
    static var broadcastRecheckInterval: Duration { .milliseconds(250) }

    /// A broadcast job from intake. During a drain it is not opened: nothing of it was sent, and
    /// its offset stays uncommitted for the next owner.
    func acceptBroadcast(_ broadcast: BroadcastRecord, record: DecodedRecord) {
        guard lifecycle.isRunning else { return }
        let job = broadcast.job
        for kind in job.warnings.labelValues { metrics.liveActivityWarning(kind: kind) }
        let decision = stoppedDecision(job.campaignID)
        if decision == .cancel {
            ledgerAction(ledger.open(record.source, notifications: 0))
            countBroadcastCancelled(job, isRetry: false)
            return
        }
        let (action, generation) = ledger.opening(record.source, notifications: 1)
        ledgerAction(action)
        broadcasts.pending += 1
        let attempt = BroadcastAttempt(
            record: broadcast, source: record.source, generation: generation, attempt: 1,
            metricsLane: record.metricsLane,
            enqueuedAtMilliseconds: record.timestampMilliseconds)
        if decision == nil { sendBroadcast(attempt) } else { waitBroadcast(attempt) }
    }

    private func sendBroadcast(_ attempt: BroadcastAttempt) {
        broadcasts.inFlight += 1
        guard let send = broadcasts.send else {
            let error = APNsError(
                code: .invalidConfiguration, message: "this worker was started without a broadcast sender")
            broadcastAnswered(attempt, .failure(error))
            return
        }
        let (loop, core) = (eventLoop, NIOLoopBound(self, eventLoop: eventLoop))
        send(attempt.job) { result in
            loop.execute { core.value.broadcastAnswered(attempt, result) }
        }
    }

    private func broadcastAnswered(_ attempt: BroadcastAttempt, _ result: Result<APNsChannelResponse, APNsError>) {
        broadcasts.inFlight -= 1
        // Revoked (and forgotten) meanwhile, or the drain ended: the next owner reads it again.
        guard !lifecycle.isFinished, ledger.generation(of: attempt.source) == attempt.generation else {
            broadcastSettled()
            return
        }
        let job = attempt.job
        let outcome = BroadcastOutcome.classify(
            result, job: job, message: attempt.record.message, source: attempt.source, attempt: attempt.attempt,
            at: .now())
        switch outcome {
        case .delivered:
            metrics.broadcast(outcome: "delivered")
            if let enqueued = attempt.enqueuedAtMilliseconds {
                let elapsed = UTCTimestamp.now().millisecondsSince1970 - enqueued
                metrics.latency(lane: attempt.metricsLane, nanoseconds: max(0, elapsed) * 1_000_000)
            }
            countBroadcastCampaign(.accepted, attempt)
            finishBroadcast(attempt, records: 0)
        case .retry(let policy, let reason):
            retryBroadcast(attempt, policy: policy, reason: reason)
        case .deadLetter(let deadLetter, let feedback):
            deadLetterBroadcast(attempt, deadLetter, feedback: feedback)
        }
        checkDrainProgress()
    }

    private func retryBroadcast(_ attempt: BroadcastAttempt, policy: APNsRetryPolicy, reason: String) {
        let tooManyRequests = policy == .afterDelayPerToken
        guard attempt.attempt < classifier.configuration.maximumAttempts else {
            let last = RetryReason(kind: tooManyRequests ? .tooManyRequests : .apnsUnavailable, cause: reason)
            let deadLetter = DeadLetterRecord(
                subject: .job(attempt.record.message), reason: .retriesExhausted(attempts: attempt.attempt, last: last),
                attempts: attempt.attempt, app: attempt.job.app, jobID: attempt.job.id, source: attempt.source,
                failedAt: .now())
            deadLetterBroadcast(attempt, deadLetter, feedback: nil)
            return
        }
        // Its partition is going, or the worker is: the next owner sends it.
        guard lifecycle.isRunning, !commits.isRevoking(attempt.source.partitionKey) else {
            abandonBroadcast(attempt)
            return
        }
        metrics.broadcast(outcome: "retry_scheduled")
        countBroadcastCampaign(.retryScheduled, attempt)
        let backoff = tooManyRequests ? configuration.retry.tooManyRequests : configuration.retry.backoff
        waitBroadcast(
            attempt.next(after: backoff.jitteredDelay(afterAttempt: attempt.attempt, fraction: .random(in: 0..<1))))
    }

    /// Waits out `attempt.remaining` (and a paused campaign) in steps of at most
    /// ``broadcastRecheckInterval``, then sends; gives up when its partition or the worker goes.
    /// Nothing left to wait (a pause): a whole interval, so a paused broadcast never spins.
    private func waitBroadcast(_ attempt: BroadcastAttempt) {
        let step =
            attempt.remaining > .zero
            ? min(attempt.remaining, Self.broadcastRecheckInterval) : Self.broadcastRecheckInterval
        var waiting = attempt
        waiting.remaining = max(.zero, attempt.remaining - step)
        eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(max(1, step.nanoseconds))) {
            self.broadcastRecheck(waiting)
        }
    }

    private func broadcastRecheck(_ attempt: BroadcastAttempt) {
        guard lifecycle.isRunning, ledger.generation(of: attempt.source) == attempt.generation,
            !commits.isRevoking(attempt.source.partitionKey)
        else {
            abandonBroadcast(attempt)
            checkDrainProgress()
            return
        }
        switch stoppedDecision(attempt.job.campaignID) {
        case .cancel:
            countBroadcastCancelled(attempt.job, isRetry: attempt.attempt > 1)
            finishBroadcast(attempt, records: 0)
        case nil where attempt.remaining == .zero:
            sendBroadcast(attempt)
        default:
            waitBroadcast(attempt)
        }
    }

    private func deadLetterBroadcast(
        _ attempt: BroadcastAttempt, _ deadLetter: DeadLetterRecord, feedback: OutgoingRecord?
    ) {
        metrics.broadcast(outcome: "dead_lettered")
        publishDeadLetter(deadLetter, source: attempt.source, generation: attempt.generation, countsNotification: false)
        var records = 1
        if let feedback {
            publish(
                PendingRecord(
                    kind: .feedback, topic: configuration.topics.feedback, record: feedback, source: attempt.source,
                    generation: attempt.generation))
            metrics.feedbackEvent(app: attempt.job.app, reason: deadLetter.reason.apnsReason ?? "")
            records += 1
        }
        let afterSending = deadLetter.reason.code != DeadLetterReason.invalidRequestCode
        countBroadcastCampaign(
            feedback == nil
                ? .deadLettered(afterSending: afterSending) : .feedback(reason: deadLetter.reason.apnsReason ?? ""),
            attempt)
        finishBroadcast(attempt, records: records)
    }

    /// The broadcast is terminal; `records` records it caused were enqueued.
    private func finishBroadcast(_ attempt: BroadcastAttempt, records: Int) {
        ledgerAction(ledger.notificationFinished(attempt.source, generation: attempt.generation, records: records))
        broadcastSettled()
    }

    /// Given up here unsent (revoke, drain): its entry never completes, and the next owner sends it.
    private func abandonBroadcast(_ attempt: BroadcastAttempt) {
        ledger.abandon(attempt.source, generation: attempt.generation, count: 1)
        metrics.broadcast(outcome: "abandoned")
        broadcastSettled()
    }

    /// One broadcast less is held: intake paused on the bound resumes at half of it (at once
    /// while draining, so no consumer task waits for a broadcast that will not settle).
    private func broadcastSettled() {
        broadcasts.pending -= 1
        guard !broadcasts.waiters.isEmpty,
            !lifecycle.isRunning || broadcasts.pending <= BroadcastDispatch.maximumPending / 2
        else { return }
        let waiters = broadcasts.waiters
        broadcasts.waiters = []
        for waiter in waiters { waiter() }
    }

    private func countBroadcastCancelled(_ job: BroadcastJob, isRetry: Bool) {
        metrics.broadcast(outcome: "cancelled")
        countCancelledProgress(campaignID: job.campaignID, isRetry: isRetry, count: 1)
    }

    private func countBroadcastCampaign(_ outcome: CampaignOutcome, _ attempt: BroadcastAttempt) {
        guard let campaignID = attempt.job.campaignID else { return }
        campaigns.count(outcome, campaignID: campaignID, isRetry: attempt.attempt > 1, at: .now())
    }
}
