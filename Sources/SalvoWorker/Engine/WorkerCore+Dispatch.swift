import DequeModule
import NIOCore
import SalvoAPNs
import SalvoPrimitives

extension WorkerCore {
    /// Pumps once per event-loop turn however many outcomes or records arrived in it, so each
    /// round submits one batch per pool.
    func schedulePump() {
        guard dispatch.onPumpWanted() else { return }
        executePump()
    }

    /// The pump ``DispatchWindow`` asked for, later in this event-loop turn.
    private func executePump() {
        eventLoop.assumeIsolated().execute { [self] in pump() }
    }

    /// After an outcome: a pump now, or once a batch's worth of the window is free
    /// (``DispatchWindow/onAnswered(urgent:waiting:)``). New jobs, replays, retries and draining
    /// pump at once (``schedulePump()``).
    func scheduleRefill() {
        switch dispatch.onAnswered(urgent: !lifecycle.isRunning || !waitingWork.ready.isEmpty, waiting: waiting) {
        case .none:
            return
        case .pumpNow:
            executePump()
        case .armRefill:
            timers.refill = eventLoop.assumeIsolated().scheduleTask(in: Self.refillDelay) {
                self.timers.refill = nil
                if self.dispatch.onRefillDue() { self.executePump() }
            }
        }
    }

    /// The longest a partial refill waits (see ``DispatchWindow/onAnswered(urgent:waiting:)``).
    static var refillDelay: TimeAmount { .milliseconds(1) }

    /// The window's size (``DispatchWindow/size``).
    var window: Int { dispatch.size }

    /// What the window holds besides what is in flight: delayed by a rate limit, held for a
    /// retry, parked in an unhealthy pool.
    var waiting: Int {
        waitingWork.delayedSends.heldCount + waitingWork.retries.heldCount + pools.parkedCount
    }

    /// What the window holds: in flight and ``waiting``.
    var occupied: Int { dispatch.inFlight + waiting }

    /// Whether new lane work may be taken: running, Kafka keeping up with the records, and offset
    /// commits succeeding or little completed work uncommitted (``CommitGate``).
    private var takesLaneWork: Bool {
        lifecycle.isRunning && !records.isFull && !commits.isClosed
    }

    /// Fills the window: replays and due retries first, then lane slots (per-user before campaign
    /// by the lanes' weights), each new slot through the app and device rate limits. Requests are
    /// collected per pool and submitted with one call per pool.
    func pump() {
        if dispatch.onPumpStarted() {
            timers.refill?.cancel()
            timers.refill = nil
        }
        guard !lifecycle.isFinished else { return }
        var batches = [DispatchBatch?](repeating: nil, count: pools.slots.count)
        // The notifications of one job come in runs: while the job stays the same, so does its
        // pool, found without building and comparing a key per notification.
        var lastShared: PushNotification.Shared?
        var lastSlot = 0
        // Per-user jobs change at every notification but rarely change pool: an equal key
        // (compared, not hashed) keeps the slot. Hashing the app name cost ~400 instructions a job.
        var lastKey: WorkerPoolKey?
        let now = clock.now
        let takesLaneWork = self.takesLaneWork
        // Campaign commands are asked once per job run, and only while one is in force.
        let checksCampaigns = campaigns.hasCommands
        let limitsSends = limits.apply
        var campaignShared: PushNotification.Shared?
        var campaignDecision: CampaignDecision?
        var lanesTurn = false
        let limit = dispatch.onPumpPlanned(
            now: now, priorityQueued: dispatch.adaptsToLatency && scheduler.queuedNotifications(in: .priority) > 0)
        var sentPriority = false
        // The job whose notifications the lane hands out now, and how many more of them may go
        // before its unconfirmed sends reach their bound (``unconfirmedSendsBound``).
        var run = LaneRun()
        var waitingLane: Lane?
        let unconfirmedBound = unconfirmedSendsBound
        while dispatch.hasRoom(waiting: waiting, limit: limit) {
            let item: DispatchItem
            // New sends (not replays or due retries) go through the rate limits.
            let isNewSend: Bool
            if let replay = waitingWork.ready.popFirst() {
                item = replay
                isNewSend = false
            } else if takesLaneWork, let next = nextResumed(lanesTurn: &lanesTurn) {
                item = next
                isNewSend = true
            } else if takesLaneWork, let slot = scheduler.next(skipping: waitingLane) {
                lanesTurn = false
                if slot.work.shared !== run.shared {
                    run.close(in: &ledger)
                    run = LaneRun(slot.work, ledger: ledger, bound: unconfirmedBound)
                }
                guard run.allowance > 0 else {
                    // Its lane waits until a checkpoint naming more of this job done is acknowledged.
                    scheduler.putBack(slot)
                    waitForCheckpoint(of: slot.work)
                    guard waitingLane == nil else { break }
                    waitingLane = slot.lane
                    continue
                }
                if limitsSends, slot.lane == .campaign, let wait = campaignWaitsForLimiter(slot.work, now: now) {
                    // Kept in its lane rather than booked far ahead in the app's limiter, where a
                    // per-user push would queue behind it.
                    scheduler.putBack(slot)
                    wakeForLimiter(in: wait)
                    guard waitingLane == nil else { break }
                    waitingLane = slot.lane
                    continue
                }
                run.onTaken()
                item = DispatchItem(
                    notification: slot.work.notification(at: slot.index), metricsLane: slot.work.metricsLane,
                    enqueuedAtMilliseconds: slot.work.enqueuedAtMilliseconds)
                isNewSend = true
            } else {
                break
            }
            if checksCampaigns {
                if item.notification.shared !== campaignShared {
                    campaignShared = item.notification.shared
                    campaignDecision = stoppedDecision(item.notification.shared.job.campaignID)
                }
                if let campaignDecision {
                    divert(item, campaignDecision)
                    continue
                }
            }
            if isNewSend, limitsSends, isDelayedByRateLimit(item.notification, now: now) { continue }
            if item.notification.shared !== lastShared {
                lastShared = item.notification.shared
                let key = WorkerPoolKey(app: item.notification.job.app, environment: item.notification.job.environment)
                if key != lastKey {
                    // The consumer tasks only pass jobs whose app and environment have a pool.
                    guard let index = pools.index[key] else { preconditionFailure("no pool for \(key)") }
                    lastSlot = index
                    lastKey = key
                }
            }
            // An unhealthy pool takes only its probes; the rest waits parked (no attempt used).
            if pools.unhealthy > 0, !admitProbe(slot: lastSlot) {
                park(item, slot: lastSlot)
                continue
            }
            let batch: DispatchBatch
            if let existing = batches[lastSlot] {
                batch = existing
            } else {
                // This notification and what else the window takes this round.
                batch = DispatchBatch(capacity: dispatch.freeRoom(waiting: waiting, limit: limit))
                batches[lastSlot] = batch
            }
            do {
                batch.requests.append(try item.notification.request())
                if item.metricsLane == .priority { sentPriority = true }
                // Moved into the batch, not copied (a retain and release per reference in it).
                batch.items.append(consume item)
                dispatch.onSent()
            } catch {
                handle(classifier.classify(.invalidRequest(error), of: item.notification, at: .now()), of: item)
            }
        }
        run.close(in: &ledger)
        dispatch.onPumpEnded(sentPriority: sentPriority, limit: limit, now: now)
        for (index, batch) in batches.enumerated() {
            guard let batch, !batch.requests.isEmpty else { continue }
            submit(batch, to: index)
        }
        resumeLaneWaiters()
        checkDrainProgress()
    }

    /// How far ahead a campaign send may be booked in its app's rate limit. A send booked later
    /// stays in its lane: per-user pushes booked after it would wait behind it, and a revoke or
    /// drain would hand it off.
    static var campaignBookingHorizon: Duration { .milliseconds(100) }

    /// How long the campaign lane should wait before `unit`'s app's limit takes a send within the
    /// booking horizon; nil when it does now.
    private func campaignWaitsForLimiter(_ unit: DispatchUnit, now: C.Instant) -> Duration? {
        let delay = limits.appDelay(app: unit.job.app, now: now)
        return delay > Self.campaignBookingHorizon ? delay - Self.campaignBookingHorizon : nil
    }

    /// Pumps again once the campaign lane's app limit has room (one timer at a time).
    private func wakeForLimiter(in delay: Duration) {
        guard timers.limiterWake == nil else { return }
        timers.limiterWake = eventLoop.assumeIsolated().scheduleTask(
            in: .nanoseconds(max(1_000_000, delay.nanoseconds))
        ) {
            self.timers.limiterWake = nil
            self.schedulePump()
        }
    }

    /// Reserves a send with the app's and the device token's limits; a send over either waits in
    /// the delayed-sends scheduler (not an attempt, never dropped).
    func isDelayedByRateLimit(_ notification: PushNotification, now: C.Instant) -> Bool {
        guard let (delay, byApp) = limits.onSend(app: notification.job.app, token: notification.token, now: now)
        else { return false }
        statistics.rateLimited += 1
        metrics.rateLimited(byApp: byApp)
        switch waitingWork.delayedSends.hold(notification, until: now.advanced(by: delay), now: now) {
        case .held(_, let rearm):
            if rearm { armTimer() }
        case .handOff(let batch):
            handOff(batch)
        }
        return true
    }

    private func submit(_ batch: DispatchBatch, to slot: Int) {
        // One box for both: each access to a loop-bound value checks the thread, per answer.
        let bound = NIOLoopBound((core: self, items: batch), eventLoop: eventLoop)
        // One round-trip sample per batch, at its median answer: a clock read per batch, not per
        // notification, and none while the flight limit is not in force (0 is never reached).
        let submittedAt = dispatch.samplesRoundTrips ? clock.now : nil
        let sampledAnswer = submittedAt == nil ? 0 : (batch.requests.count + 1) / 2
        pools.slots[slot].pool.submit(batch.requests) { index, outcome in
            let (core, items) = bound.value
            // Points at the item in the batch's storage: passed by value, it was copied out first
            // (see `completed`).
            items.items.withUnsafeBufferPointer { core.completed($0.baseAddress! + index, outcome, slot: slot) }
            items.answered += 1
            if items.answered == sampledAnswer, let submittedAt {
                core.roundTripSampled(since: submittedAt)
            }
        }
    }

    /// Feeds the flight limit one round trip (``AdaptiveWindow``) while it is in force.
    private func roundTripSampled(since submittedAt: C.Instant) {
        guard dispatch.samplesRoundTrips else { return }
        let now = clock.now
        dispatch.onLatencySample(submittedAt.duration(to: now), now: now)
    }

    /// Lanes back under their capacity let their consumer tasks pull again (all of them, and
    /// those waiting for the records queue or the commit gate, once draining).
    private func resumeLaneWaiters() {
        let running = lifecycle.isRunning
        if !running {
            for waiter in records.onDrainReleasesWaiters() { waiter() }
            for waiter in commits.onDrainReleasesWaiters() { waiter() }
        }
        guard !laneWaiters.isEmpty else { return }
        for lane in Lane.allCases where !running || scheduler.hasCapacity(in: lane) {
            guard let waiters = laneWaiters.removeValue(forKey: lane) else { continue }
            for waiter in waiters { waiter() }
        }
    }
}
