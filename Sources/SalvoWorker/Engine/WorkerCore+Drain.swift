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
        guard phase == .running else {
            promise.succeed()
            return
        }
        phase = .draining
        drainPromise = promise
        drainDeadlineTask = eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(budget.nanoseconds)) { [self] in
            logger.warning(
                "drain deadline reached", metadata: ["in-flight": "\(inFlight)", "records": "\(pendingRecords)"])
            finishDrain()
        }
        schedulePump()
    }

    /// Moves the drain on when in-flight work or pending records reached zero.
    func checkDrainProgress() {
        guard phase == .draining else { return }
        if !heldHandedOff {
            guard inFlight == 0, ready.isEmpty, broadcasts.inFlight == 0 else { return }
            heldHandedOff = true
            timer?.cancel()
            timer = nil
            timerDeadline = nil
            for batch in retries.drainForShutdown() { handOff(batch) }
            for batch in delayedSends.drainForShutdown() { handOff(batch) }
            for batch in drainParked() { handOff(batch) }
            handOffHoldsForShutdown()
            handOffBegunJobs()
        }
        if pendingRecords == 0 { finishDrain() }
    }

    /// The undispatched notifications of every lane job (paused campaigns' included) that had
    /// begun sending, to the retry topic
    /// (due now, their attempt unchanged).
    private func handOffBegunJobs() {
        let now = clock.now
        let laneJobs = scheduler.removeAll(where: { _ in true }) + pausedJobs.removeAll().map { ($0.unit, $0.first) }
        for (unit, first) in laneJobs {
            guard first > 0 else {
                // Not begun: left to the next owner, and settled here so nothing waits for it.
                ledger.abandon(
                    unit.reference.source, generation: unit.reference.ledgerGeneration,
                    count: unit.job.notificationCount)
                continue
            }
            let notifications = unit.notifications(from: first)
            statistics.handedOffOnDrain += notifications.count
            handOff(RetryScheduler.StateMachine<C>.Batch(app: unit.job.app, due: now, notifications: notifications))
        }
    }

    private func finishDrain() {
        guard phase != .finished else { return }
        phase = .finished
        drainDeadlineTask?.cancel()
        drainDeadlineTask = nil
        timer?.cancel()
        timer = nil
        publishStatistics()
        drainPromise?.succeed()
        drainPromise = nil
    }

    /// After the engine closed the consumers and the publisher: stops the statistics timer.
    func stop() {
        statisticsTask?.cancel()
        statisticsTask = nil
        publishStatistics()
        for summary in warnings.remainingSummaries(now: clock.now) { logger.log(summary) }
    }
}
