import Logging
import NIOCore
import SalvoKafka
import SalvoPrimitives

extension WorkerCore {
    /// Graceful shutdown: no more lane slots; in-flight notifications finish (replays included);
    /// then every held retry, delayed send and parked notification goes to the retry topic, and so
    /// do the notifications not yet sent of every job that had begun sending; `promise` succeeds
    /// once Kafka acknowledged every record, or after `budget` whatever is left.
    ///
    /// A begun job is thus finished here (its offset commits once its records are acknowledged)
    /// and the next owner sends only what was handed off: before, the job stayed open and the next
    /// owner sent it whole again, its handed-off notifications included. Jobs that had not begun
    /// stay queued and open: nothing of them was sent, so the next owner sending them costs no
    /// duplicate. At-least-once holds on every path, including the deadline.
    func beginDrain(within budget: Duration, promise: EventLoopPromise<Void>) {
        switch lifecycle.onBeginDrain(promise, budget: budget, now: clock.now) {
        case .answer(let promise):
            promise.succeed()
        case .start(let deadline):
            let remaining = clock.now.duration(to: deadline)
            timers.drainDeadline = eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(remaining.nanoseconds)) {
                [self] in
                logger.warning(
                    "drain deadline reached",
                    metadata: ["in-flight": "\(dispatch.inFlight)", "records": "\(records.pending)"])
                perform(lifecycle.onDeadline())
            }
            schedulePump()
        }
    }

    /// Moves the drain on when in-flight work or pending records reached zero.
    func checkDrainProgress() {
        // Asked after every pump: while running, nothing of a drain to ask the lifecycle about.
        guard !lifecycle.isRunning else { return }
        if lifecycle.onWorkSettled(
            idle: dispatch.inFlight == 0 && waitingWork.ready.isEmpty && broadcasts.inFlight == 0)
        {
            timers.due?.cancel()
            timers.due = nil
            timers.dueAt = nil
            for batch in waitingWork.retries.drainForShutdown() { handOff(batch) }
            // Sends that only waited for a rate limit are due at once: the next owner paces them
            // with its own limits.
            for var batch in waitingWork.delayedSends.drainForShutdown() {
                batch.due = clock.now
                handOff(batch)
            }
            for batch in drainParked() { handOff(batch) }
            handOffHoldsForShutdown()
            handOffBegunJobs()
        }
        perform(lifecycle.onRecordsSettled(pending: records.pending))
    }

    /// The undispatched notifications of every lane job (paused campaigns' included) that had
    /// begun sending, to the retry topic
    /// (due now, their attempt unchanged).
    private func handOffBegunJobs() {
        let now = clock.now
        let laneJobs =
            scheduler.removeAll(where: { _ in true }) + campaigns.removePausedJobs().map { ($0.unit, $0.range) }
        for (unit, range) in laneJobs {
            guard range.lowerBound > 0 else {
                // Not begun: left to the next owner, and settled here so nothing waits for it.
                ledger.abandon(unit.reference.source, generation: unit.reference.ledgerGeneration, count: range.count)
                continue
            }
            let notifications = unit.notifications(in: range)
            statistics.handedOffOnDrain += notifications.count
            handOff(RetryScheduler.StateMachine<C>.Batch(app: unit.job.app, due: now, notifications: notifications))
        }
    }

    /// The drain ended (everything settled, or its deadline): timers stop and the waiter is told.
    private func perform(_ finish: CoreLifecycle<EventLoopPromise<Void>, C.Instant>.Finish) {
        if case .checkpoint = finish {
            writeCheckpoints(.all, final: true)
            return perform(lifecycle.onRecordsSettled(pending: records.pending))
        }
        guard case .finish(let promise) = finish else { return }
        timers.drainDeadline?.cancel()
        timers.drainDeadline = nil
        timers.due?.cancel()
        timers.due = nil
        timers.limiterWake?.cancel()
        timers.limiterWake = nil
        publishStatistics()
        promise?.succeed()
    }

    /// Whether the drain's final checkpoints were written and acknowledged (false without a
    /// progress topic): a commit that fails after them costs no re-send of what completed.
    var finalCheckpointsAcknowledged: Bool {
        checkpoints.topic != nil && checkpointing.drainCheckpointsConfirmed
    }

    /// After the engine closed the consumers and the publisher: stops the statistics timer.
    func stop() {
        timers.statistics?.cancel()
        timers.statistics = nil
        publishStatistics()
        for summary in records.remainingRefusalSummaries(now: clock.now) { logger.log(summary) }
    }
}
