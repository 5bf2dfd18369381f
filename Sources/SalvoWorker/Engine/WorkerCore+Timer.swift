import NIOCore
import SalvoKafka
import SalvoPrimitives

/// One timer for everything due later: retries, rate-limit delays, probes of unhealthy pools and
/// paused campaigns' held work (split from `WorkerCore.swift` to keep files short).
extension WorkerCore {
    /// Sets the timer to the earliest deadline of the retry scheduler, the delayed sends, the
    /// probes and the hold queue.
    func armTimer() {
        let deadline = [
            waitingWork.retries.nextDeadline, waitingWork.delayedSends.nextDeadline, nextProbe, campaigns.nextExpiry,
        ].compactMap { $0 }.min()
        guard let deadline else { return }
        if let dueAt = timers.dueAt, dueAt <= deadline, timers.due != nil { return }
        timers.due?.cancel()
        timers.dueAt = deadline
        let delay = clock.now.duration(to: deadline)
        timers.due = eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(max(0, delay.nanoseconds))) {
            self.timerFired()
        }
    }

    private func timerFired() {
        timers.due = nil
        timers.dueAt = nil
        guard !lifecycle.isFinished else { return }
        let now = clock.now
        for batch in waitingWork.retries.collectDue(now: now) { release(batch) }
        for batch in waitingWork.delayedSends.collectDue(now: now) { release(batch) }
        startDueProbes(now: now)
        handOffExpiredHolds(now: now)
        armTimer()
        schedulePump()
    }

    /// Due notifications go out again, except while draining, when they go to the retry topic.
    func release(_ batch: RetryScheduler.StateMachine<C>.Batch) {
        guard lifecycle.isRunning else {
            handOff(batch)
            return
        }
        for notification in batch.notifications {
            waitingWork.ready.append(
                DispatchItem(notification: notification, metricsLane: .retry, enqueuedAtMilliseconds: nil))
        }
    }
}
