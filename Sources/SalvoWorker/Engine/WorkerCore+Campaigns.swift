import DequeModule
import Logging
import NIOCore
import SalvoKafka
import SalvoPrimitives

/// Campaign control (docs/jobs.md, "Campaign control"): the commands in force decide, at intake
/// and before dispatch, whether a campaign's notification is sent, held (paused) or finished
/// without sending (cancelled); a new snapshot sweeps the work already here. Cancelled
/// notifications finish in the ledger like delivered ones (no record), so their offsets commit;
/// paused work waits in ``CampaignControl``, which decides what is held, what overflows and what
/// expires to the retry topic; this executor sweeps the core's other queues and hands off.
///
/// While no command is in force (``CampaignControl/hasCommands``) none of this runs per
/// notification.
extension WorkerCore {
    /// How far ahead paused work handed to the retry topic is due: it comes back a few seconds
    /// later and is held again, or sent once the campaign resumed.
    static var heldHandOffDelay: Duration { .seconds(5) }

    /// A snapshot of the control topic (the follower's, hopped to this loop). The initial state
    /// and an early change may arrive in either order: only a higher generation counts.
    func controlChanged(_ state: CampaignControlState) {
        guard let changes = campaigns.onSnapshot(state), !lifecycle.isFinished else { return }
        let now = clock.now
        for (campaignID, decision) in changes {
            let affected: Int
            switch decision {
            case .cancel:
                let before = statistics.cancelled
                let (jobs, held) = campaigns.onCancel(campaignID)
                for job in jobs { cancelLaneJob(job.unit, job.range) }
                finishCancelled(sweep(campaignID, laneWork: .cancel) + held)
                affected = statistics.cancelled - before
            case .hold:
                let parkedBefore = campaigns.pausedNotificationCount
                let held = sweep(campaignID, laneWork: .park)
                affected = held.count + campaigns.pausedNotificationCount - parkedBefore
                hold(held, now: now)
            case .send:
                let resumed = campaigns.onResume(campaignID)
                affected = resumed.notifications
                for job in resumed.jobs { scheduler.enqueue(job.unit, range: job.range, lane: job.lane) }
            }
            // What operators check after a command (ops/RUNBOOK.md); `applied_at_ms` is what the
            // acceptance test measures the fleet's reaction by.
            logger.notice(
                "campaign command applied",
                metadata: [
                    "campaign_id": "\(campaignID)", "decision": "\(decision)", "notifications": "\(affected)",
                    "applied_at_ms": "\(UTCTimestamp.now().millisecondsSince1970)",
                    "took_ms": "\(now.duration(to: clock.now).nanoseconds / 1_000_000)",
                ])
        }
        armTimer()
        schedulePump()
    }

    /// The decision for a job's notifications when a command is in force for its campaign;
    /// nil to send (no campaign, no command, or resumed).
    func stoppedDecision(_ campaignID: String?) -> CampaignDecision? {
        campaigns.stoppedDecision(campaignID)
    }

    /// A notification the pump took for a campaign that is paused or cancelled now.
    func divert(_ item: DispatchItem, _ decision: CampaignDecision) {
        if decision == .cancel {
            finishCancelled([item.notification])
        } else {
            hold([item.notification], now: clock.now)
        }
    }

    /// What a sweep does with the lanes' jobs of the campaign. Neither `cancel` nor `park` builds
    /// their notifications: a large campaign's backlog would otherwise hold the loop for seconds.
    private enum LaneWork {
        /// Finished as cancelled, by index.
        case cancel
        /// Moved whole to ``PausedJobs``, as far as it has room; the rest is swept as notifications.
        case park
    }

    /// Every notification of the campaign that is here and not in flight: queued in the lanes
    /// (unless `laneWork` took care of them), delayed by a rate limit, waiting for a retry or a
    /// replay, parked by pool health, resumed.
    private func sweep(_ campaignID: String, laneWork: LaneWork) -> [PushNotification] {
        var swept: [PushNotification] = []
        let now = clock.now
        for (unit, range) in scheduler.removeAll(where: { $0.job.campaignID == campaignID }) {
            switch laneWork {
            case .cancel:
                cancelLaneJob(unit, range)
            case .park:
                if !campaigns.park(PausedJob(unit: unit, range: range), campaignID: campaignID, now: now) {
                    swept += unit.notifications(in: range)
                }
            }
        }
        let isCampaign: (PushNotification) -> Bool = { $0.job.campaignID == campaignID }
        let waiting = takeWaiting(where: isCampaign)
        for batch in waiting.retries + waiting.delayed { swept += batch.notifications }
        swept += waiting.dueNow
        swept += campaigns.removeHeld(where: isCampaign, resumedOnly: true)
        return swept
    }

    /// A lane job's notifications in `range`, finished as cancelled by index.
    private func cancelLaneJob(_ unit: DispatchUnit, _ range: Range<Int>) {
        let job = unit.reference
        for index in range {
            ledgerAction(
                ledger.notificationFinished(
                    job.source, generation: job.ledgerGeneration, index: Int32(truncatingIfNeeded: index)))
        }
        countCancelled(app: job.app, campaignID: job.campaignID, isRetry: unit.attempt > 1, count: range.count)
    }

    /// Holds paused work; what does not fit goes to the retry topic (not an attempt).
    func hold(_ notifications: [PushNotification], now: C.Instant) {
        let held = campaigns.onHold(notifications, now: now)
        handOffHeld(held.overflow, now: now)
        if held.armTimer { armTimer() }
    }

    /// From the timer: work held for `retry.max_held_delay` goes to the retry topic, so its job
    /// completes and the partition commits while the campaign stays paused.
    func handOffExpiredHolds(now: C.Instant) {
        let expired = campaigns.onExpiry(now: now)
        handOffHeld(expired.held, now: now)
        handOffHeld(expired.paused, now: now)
    }

    /// Shutdown: held and resumed work goes to the retry topic (the next owner holds or sends it).
    func handOffHoldsForShutdown() {
        handOffHeld(campaigns.removeHeld(where: { _ in true }), now: clock.now)
    }

    /// Paused work to the retry topic, due ``heldHandOffDelay`` ahead, its attempt unchanged.
    private func handOffHeld(_ notifications: [PushNotification], now: C.Instant) {
        guard !notifications.isEmpty else { return }
        statistics.heldHandedOff += notifications.count
        let due = now.advanced(by: Self.heldHandOffDelay)
        for (app, group) in Dictionary(grouping: notifications, by: { $0.job.app }) {
            handOff(RetryScheduler.StateMachine<C>.Batch(app: app, due: due, notifications: group))
        }
    }

    /// Cancelled notifications finish without sending and without a record: their jobs complete
    /// (and commit) like delivered ones, and a checkpoint counts them done.
    func finishCancelled(_ notifications: [PushNotification]) {
        guard !notifications.isEmpty else { return }
        for notification in notifications {
            ledgerAction(
                ledger.notificationFinished(
                    notification.job.source, generation: notification.job.ledgerGeneration, index: notification.index))
        }
        // Counted per run of one job's notifications (they come in runs), not hashed one by one.
        var run: (key: CancelKey, count: Int)?
        for notification in notifications {
            let key = CancelKey(notification)
            if let current = run, current.key == key {
                run = (key, current.count + 1)
                continue
            }
            if let run {
                countCancelled(
                    app: run.key.app, campaignID: run.key.campaignID, isRetry: run.key.isRetry, count: run.count)
            }
            run = (key, 1)
        }
        if let run {
            countCancelled(app: run.key.app, campaignID: run.key.campaignID, isRetry: run.key.isRetry, count: run.count)
        }
    }

    /// Counts `count` cancelled notifications (statistics, metrics, campaign progress).
    func countCancelled(app: String, campaignID: String?, isRetry: Bool, count: Int) {
        guard count > 0 else { return }
        metrics.notification(app: app, outcome: "cancelled", reason: "", count: count)
        countCancelledProgress(campaignID: campaignID, isRetry: isRetry, count: count)
    }

    /// The statistics and campaign-progress part of a cancel, shared with broadcasts (which have
    /// their own outcome metric).
    func countCancelledProgress(campaignID: String?, isRetry: Bool, count: Int) {
        statistics.cancelled += count
        if let campaignID {
            campaigns.count(
                .cancelled, campaignID: campaignID, isRetry: isRetry, times: Int64(count), at: .now())
        }
    }

    /// One outcome of a campaign's notification for `salvo.campaigns` (nothing for other jobs).
    func countCampaign(_ outcome: CampaignOutcome, of notification: PushNotification) {
        guard let campaignID = notification.shared.job.campaignID else { return }
        campaigns.count(outcome, campaignID: campaignID, isRetry: notification.attempt > 1, at: .now())
    }

    /// The next resumed notification when it is its turn: it alternates with the lanes (which
    /// keep per-user pushes first), so a resume's burst delays other work but never stops it.
    func nextResumed(lanesTurn: inout Bool) -> DispatchItem? {
        guard campaigns.hasResumed, !lanesTurn || scheduler.isEmpty else { return nil }
        lanesTurn = true
        return campaigns.nextResumed().map {
            DispatchItem(notification: $0, metricsLane: .campaign, enqueuedAtMilliseconds: nil)
        }
    }

    private struct CancelKey: Hashable {
        var app: String
        var campaignID: String?
        var isRetry: Bool

        init(_ notification: PushNotification) {
            app = notification.job.app
            campaignID = notification.job.campaignID
            isRetry = notification.attempt > 1
        }
    }
}
