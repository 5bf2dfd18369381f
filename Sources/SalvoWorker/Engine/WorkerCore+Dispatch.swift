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
        if phase != .running || !ready.isEmpty || window - inFlight - delayedSends.heldCount >= refillBatch {
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
    static let refillDelay = TimeAmount.milliseconds(1)

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
        var batches: [WorkerPoolKey: DispatchBatch] = [:]
        // The notifications of one job come in runs: while the job stays the same, so does its
        // batch, found without building and comparing a key per notification.
        var lastShared: PushNotification.Shared?
        var lastBatch: DispatchBatch?
        let now = clock.now
        while inFlight + delayedSends.heldCount < window {
            let item: DispatchItem
            if let replay = ready.popFirst() {
                item = replay
            } else if phase == .running, let slot = scheduler.next() {
                item = DispatchItem(
                    notification: slot.work.notification(at: slot.index), metricsLane: slot.work.metricsLane,
                    enqueuedAtMilliseconds: slot.work.enqueuedAtMilliseconds)
                if isDelayedByRateLimit(item.notification, now: now) { continue }
            } else {
                break
            }
            let batch: DispatchBatch
            if let lastBatch, item.notification.shared === lastShared {
                batch = lastBatch
            } else {
                let key = WorkerPoolKey(app: item.notification.job.app, environment: item.notification.job.environment)
                if let existing = batches[key] {
                    batch = existing
                } else {
                    batch = DispatchBatch()
                    batches[key] = batch
                }
                lastShared = item.notification.shared
                lastBatch = batch
            }
            do {
                batch.requests.append(try item.notification.request())
                batch.items.append(item)
                inFlight += 1
            } catch {
                handle(classifier.classify(.invalidRequest(error), of: item.notification, at: .now()), of: item)
            }
        }
        for (key, batch) in batches where !batch.requests.isEmpty {
            submit(batch, to: key)
        }
        resumeLaneWaiters()
        checkDrainProgress()
    }

    /// Reserves a send with the app's and the device token's limits; a send over either waits in
    /// the delayed-sends scheduler (not an attempt, never dropped).
    private func isDelayedByRateLimit(_ notification: PushNotification, now: ContinuousClock.Instant) -> Bool {
        let appDelay = appLimiter.reserve(app: notification.job.app, now: now)
        let deviceDelay = deviceLimiter?.reserve(notification.token, now: now) ?? .zero
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

    private func submit(_ batch: DispatchBatch, to key: WorkerPoolKey) {
        guard let pool = pools[key] else {
            // The consumer task only passes jobs whose app and environment have a pool.
            preconditionFailure("no pool for \(key)")
        }
        let core = NIOLoopBound(self, eventLoop: eventLoop)
        let items = NIOLoopBound(batch, eventLoop: eventLoop)
        pool.submit(batch.requests) { index, outcome in
            // Lends the item from the batch's storage: copying it out would retain and release
            // each of its references once more per notification.
            items.value.items.withUnsafeBufferPointer { core.value.completed($0[index], outcome) }
        }
    }

    /// Lanes back under their capacity let their consumer tasks pull again.
    private func resumeLaneWaiters() {
        guard !laneWaiters.isEmpty else { return }
        for lane in Lane.allCases where scheduler.hasCapacity(in: lane) || phase != .running {
            guard let waiters = laneWaiters.removeValue(forKey: lane) else { continue }
            for waiter in waiters { waiter.resume() }
        }
    }
}
