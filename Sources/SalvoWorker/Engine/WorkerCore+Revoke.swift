import Logging
import Metrics
import NIOCore

/// Revokes in two steps. ``revoking(_:done:)`` comes from the consumer's revoke barrier before
/// the partitions' offsets are committed: their work stops at once (what remains of jobs that
/// began sending goes to the retry topic, as in a drain) and the consumer waits until what was in
/// flight is answered and every record is acknowledged, so those jobs commit and the next owner
/// sends none of them again; then their final checkpoint (``PartitionCheckpoint``) is written and
/// acknowledged, so that even a commit that fails leaves the next owner nothing complete to send.
/// ``revoked(_:)`` follows once the consumer gave the
/// partitions up (or lost them without a barrier): their ledger entries are forgotten.
extension WorkerCore {
    /// How often a waiting revoke checks the ledger (a walk over the open jobs).
    static var revokeCheckInterval: TimeAmount { .milliseconds(5) }

    /// The consumer is about to commit and give up `partitions`: stop their work, and call `done`
    /// once none of their jobs has a request in flight or a record unacknowledged. Records of these
    /// partitions still arriving from the consumer task are left to the next owner.
    func revoking(_ partitions: Set<SourcePosition.Partition>, done: @escaping @Sendable () -> Void) {
        // After the drain (the consumers' close revokes everything) nothing more settles here:
        // waiting would only hold the close past its timeout, and a member that never leaves
        // keeps the group rebalancing without it.
        guard !lifecycle.isFinished else { return done() }
        commits.onRevoking(partitions, done: done)
        stopWork(of: partitions, .handOffBegun)
        checkRevokeWaiters()
    }

    /// The partitions are gone: whatever of them is still here stops, and their ledger entries are
    /// dropped (events still arriving for them carry a generation no entry has). In-flight work the
    /// barrier did not see finish is counted: the next owner may send it again.
    func revoked(_ partitions: Set<SourcePosition.Partition>) {
        guard !partitions.isEmpty else { return }
        stopWork(of: partitions, .abandon)
        // Lost without a barrier, jobs may be partly sent: record how far, for the next owner.
        writeCheckpoints(.partitions(partitions))
        checkpointing.onForget(partitions)
        let unsettled = ledger.unsettledCount { partitions.contains($0.partitionKey) }
        if unsettled > 0 {
            statistics.unsettledOnRevoke += unsettled
            metrics.unsettledOnRevoke.increment(by: unsettled)
            logger.warning(
                "partitions given up with work in flight; their next owner may send it again",
                metadata: ["jobs": "\(unsettled)", "partitions": "\(partitions.count)"])
        }
        ledger.forget { partitions.contains($0.partitionKey) }
        // A lost assignment leaves no offsets to commit, so no commit would ever open the gate;
        // a barrier that gave up waiting ends (its `done` is ignored, but the waiter goes).
        let revoked = commits.onRevoked(partitions)
        for report in revoked.reports { perform(report) }
        for done in revoked.finished { done() }
    }

    /// What happens to the revoked partitions' work that is not in flight.
    enum RevokedWork {
        /// Before the commit (the barrier): work of jobs that began sending goes to the retry
        /// topic, so those jobs complete and commit and the next owner sends only what was handed
        /// off; jobs not begun are abandoned (the next owner reads them, nothing of them was sent).
        case handOffBegun
        /// After the partitions were given up (or lost, when no commit can follow): everything is
        /// abandoned, since a job completing now can no longer commit.
        case abandon
    }

    /// All work of `partitions` that is not in flight stops: queued in the lanes, delayed by a
    /// rate limit, held for a retry, parked in an unhealthy pool, waiting to be replayed.
    private func stopWork(of partitions: Set<SourcePosition.Partition>, _ mode: RevokedWork) {
        let now = clock.now
        var dropped = 0
        var handedOff = 0
        let isRevokedJob: (DispatchUnit) -> Bool = { partitions.contains($0.reference.source.partitionKey) }
        let laneJobs =
            scheduler.removeAll(where: isRevokedJob)
            + campaigns.removePausedJobs(where: isRevokedJob).map { ($0.unit, $0.range) }
        for (unit, range) in laneJobs {
            if mode == .handOffBegun, range.lowerBound > 0 {
                let notifications = unit.notifications(in: range)
                handedOff += notifications.count
                handOff(RetryScheduler.StateMachine<C>.Batch(app: unit.job.app, due: now, notifications: notifications))
            } else {
                ledger.abandon(unit.reference.source, generation: unit.reference.ledgerGeneration, count: range.count)
                dropped += range.count
            }
        }
        let isRevoked: (PushNotification) -> Bool = { partitions.contains($0.job.source.partitionKey) }
        // Retries keep their due times; sends that only waited for a rate limit, replays and
        // parked work are due now (the next owner paces them with its own limits).
        let waiting = takeWaiting(where: isRevoked)
        var batches = waiting.retries
        var dueNow = waiting.dueNow
        dueNow += waiting.delayed.flatMap(\.notifications)
        // Paused campaigns' work, which the next owner holds again (or sends, once resumed).
        dueNow += campaigns.removeHeld(where: isRevoked)
        for (app, notifications) in Dictionary(grouping: dueNow, by: { $0.job.app }) {
            batches.append(RetryScheduler.StateMachine<C>.Batch(app: app, due: now, notifications: notifications))
        }
        for batch in batches {
            switch mode {
            case .handOffBegun:
                // Each of these was sent at least once (or is a retry record's): its job began.
                handedOff += batch.notifications.count
                handOff(batch)
            case .abandon:
                for notification in batch.notifications {
                    ledger.abandon(notification.job.source, generation: notification.job.ledgerGeneration, count: 1)
                }
                dropped += batch.notifications.count
            }
        }
        statistics.droppedOnRevoke += dropped
        statistics.handedOffOnRevoke += handedOff
        if dropped > 0 { metrics.droppedOnRevoke.increment(by: dropped) }
        armTimer()
        schedulePump()
    }

    /// Calls `done` of every waiting revoke whose partitions have nothing unsettled, and checks
    /// again shortly while any still waits.
    func checkRevokeWaiters() {
        timers.revokeCheck = nil
        let check = commits.onRevokeCheck { partitions in
            guard ledger.unsettledCount(where: { partitions.contains($0.partitionKey) }) == 0 else { return false }
            // Settled: the partitions' final checkpoint records what completed, so that a commit
            // failing now (a rebalance under way) costs the next owner no re-send of it.
            if checkpointing.needsFinalWrite(partitions) { writeCheckpoints(.partitions(partitions), final: true) }
            return !checkpointing.awaitsFinalWrite(in: partitions)
        }
        for done in check.finished { done() }
        guard check.waiting else { return }
        timers.revokeCheck = eventLoop.assumeIsolated().scheduleTask(in: Self.revokeCheckInterval) {
            self.checkRevokeWaiters()
        }
    }
}
