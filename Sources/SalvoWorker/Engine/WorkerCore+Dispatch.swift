import DequeModule
import NIOCore
import SalvoAPNs

extension WorkerCore {
    /// Pumps once per event-loop turn however many outcomes or records arrived in it, so each
    /// round submits one batch per pool.
    func schedulePump() {
        guard !pumpScheduled else { return }
        pumpScheduled = true
        eventLoop.assumeIsolated().execute { [self] in pump() }
    }

    /// After an outcome. Refilling the window a few slots at a time, as answers trickle in, would
    /// cost a write, a TLS record and a wake-up of the gateway per few requests; so the window
    /// refills once a batch's worth of it (``refillBatch``) is free, or after
    /// ``refillDelay`` at the latest. New jobs, replays, retries and draining pump at once
    /// (``schedulePump()``): only the refill of a full window waits, and the window stays at
    /// least seven-eighths full meanwhile.
    func scheduleRefill() {
        if phase != .running || !ready.isEmpty || freeRoom >= refillBatch {
            schedulePump()
            return
        }
        guard refillTask == nil, !pumpScheduled else { return }
        refillTask = eventLoop.assumeIsolated().scheduleTask(in: Self.refillDelay) {
            self.refillTask = nil
            self.schedulePump()
        }
    }

    /// The longest a partial refill waits (see ``scheduleRefill()``).
    static var refillDelay: TimeAmount { .milliseconds(1) }

    /// What the window holds: in flight, delayed by a rate limit, held for a retry, parked in an
    /// unhealthy pool.
    var occupied: Int {
        inFlight + delayedSends.heldCount + retries.heldCount + parkedCount
    }

    /// What a dispatch round may send: room in the window and under the flight limit.
    var freeRoom: Int { min(window - occupied, currentFlightLimit - inFlight) }

    /// The flight limit while per-user work is about, the window otherwise.
    var currentFlightLimit: Int { latencySensitive ? flightLimit.limit : window }

    /// Per-user pushes were queued or sent within the last second.
    private func updateLatencySensitivity(now: C.Instant) {
        guard flightLimit.target != nil else { return }
        if scheduler.queuedNotifications(in: .priority) > 0 {
            latencySensitive = true
        } else if let priorityDispatchedAt {
            latencySensitive = priorityDispatchedAt.duration(to: now) < .seconds(1)
        } else {
            latencySensitive = false
        }
    }

    /// Whether new lane work may be taken: running, Kafka keeping up with the records, and offset
    /// commits succeeding or little completed work uncommitted (``CommitGate``).
    private var takesLaneWork: Bool {
        phase == .running && pendingRecords < Self.maximumPendingRecords && !commitGate.isClosed
    }

    /// Fills the window: replays and due retries first, then lane slots (per-user before campaign
    /// by the lanes' weights), each new slot through the app and device rate limits. Requests are
    /// collected per pool and submitted with one call per pool.
    func pump() {
        pumpScheduled = false
        if let refillTask {
            refillTask.cancel()
            self.refillTask = nil
        }
        guard phase != .finished else { return }
        var batches = [DispatchBatch?](repeating: nil, count: slots.count)
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
        let checksCampaigns = !control.commands.isEmpty
        var campaignShared: PushNotification.Shared?
        var campaignDecision: CampaignDecision?
        var lanesTurn = false
        updateLatencySensitivity(now: now)
        let limit = currentFlightLimit
        var sentPriority = false
        while occupied < window, inFlight < limit {
            let item: DispatchItem
            // New sends (not replays or due retries) go through the rate limits.
            let isNewSend: Bool
            if let replay = ready.popFirst() {
                item = replay
                isNewSend = false
            } else if takesLaneWork, let next = nextResumed(lanesTurn: &lanesTurn) {
                item = next
                isNewSend = true
            } else if takesLaneWork, let slot = scheduler.next() {
                lanesTurn = false
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
                    guard let index = slotIndex[key] else { preconditionFailure("no pool for \(key)") }
                    lastSlot = index
                    lastKey = key
                }
            }
            // An unhealthy pool takes only its probes; the rest waits parked (no attempt used).
            if unhealthyPools > 0, !admitProbe(slot: lastSlot) {
                park(item, slot: lastSlot)
                continue
            }
            let batch: DispatchBatch
            if let existing = batches[lastSlot] {
                batch = existing
            } else {
                // This notification and what else the window takes this round.
                batch = DispatchBatch(capacity: freeRoom)
                batches[lastSlot] = batch
            }
            do {
                batch.requests.append(try item.notification.request())
                if item.metricsLane == .priority { sentPriority = true }
                // Moved into the batch, not copied (a retain and release per reference in it).
                batch.items.append(consume item)
                inFlight += 1
            } catch {
                handle(classifier.classify(.invalidRequest(error), of: item.notification, at: .now()), of: item)
            }
        }
        if sentPriority { priorityDispatchedAt = now }
        if latencySensitive, inFlight >= limit { flightLimit.limitReached() }
        for (index, batch) in batches.enumerated() {
            guard let batch, !batch.requests.isEmpty else { continue }
            submit(batch, to: index)
        }
        resumeLaneWaiters()
        checkDrainProgress()
    }

    /// Reserves a send with the app's and the device token's limits; a send over either waits in
    /// the delayed-sends scheduler (not an attempt, never dropped).
    func isDelayedByRateLimit(_ notification: PushNotification, now: C.Instant) -> Bool {
        let appDelay = appLimiter.reserve(app: notification.job.app, now: now)
        let deviceDelay = limitsDevices ? (deviceLimiter?.reserve(notification.token, now: now) ?? .zero) : .zero
        guard appDelay > .zero || deviceDelay > .zero else { return false }
        statistics.rateLimited += 1
        metrics.rateLimited(byApp: appDelay >= deviceDelay)
        switch delayedSends.hold(notification, until: now.advanced(by: max(appDelay, deviceDelay)), now: now) {
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
        let submittedAt = latencySensitive ? clock.now : nil
        let sampledAnswer = submittedAt == nil ? 0 : (batch.requests.count + 1) / 2
        slots[slot].pool.submit(batch.requests) { index, outcome in
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
        guard latencySensitive else { return }
        let now = clock.now
        flightLimit.record(submittedAt.duration(to: now), now: now)
    }

    /// Lanes back under their capacity let their consumer tasks pull again (all of them, and
    /// those waiting for the records queue or the commit gate, once draining).
    private func resumeLaneWaiters() {
        if phase != .running, !recordWaiters.isEmpty { resumeRecordWaiters() }
        if phase != .running, !commitWaiters.isEmpty {
            let waiters = commitWaiters
            commitWaiters = []
            for waiter in waiters { waiter() }
        }
        guard !laneWaiters.isEmpty else { return }
        for lane in Lane.allCases where scheduler.hasCapacity(in: lane) || phase != .running {
            guard let waiters = laneWaiters.removeValue(forKey: lane) else { continue }
            for waiter in waiters { waiter() }
        }
    }
}
