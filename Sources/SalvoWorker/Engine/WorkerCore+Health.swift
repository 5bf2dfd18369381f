import DequeModule
import Logging
import SalvoAPNs

/// Brownouts and outages hold work instead of burning it: a pool whose answers turn to failures
/// becomes unhealthy (``PoolHealth``); its new work parks in its slot, counted against the window
/// (so intake stops), a failure while unhealthy parks the notification as it was (its attempts are
/// not used up), and a few probes go out per probe delay until one is answered.
extension WorkerCore {
    /// Feeds one outcome to its pool's health. Returns true when the pool is unhealthy and this
    /// was one more failure: the caller parks the notification (``park(_:slot:)``) and stops there.
    func recordHealth(_ outcome: APNsOutcome, slot: Int) -> Bool {
        guard let signal = Self.healthSignal(outcome) else { return false }
        if signal == .answered, pools.slots[slot].health.countAnswerIfHealthy() { return false }
        if let transition = pools.slots[slot].health.record(signal, now: { clock.now }) {
            apply(transition, slot: slot)
        }
        return signal == .failed && !pools.slots[slot].health.isHealthy
    }

    /// What an outcome says about the pool: any APNs answer below 500 means it is up; 5xx, or no
    /// answer at all, that it is not. A signing failure is ours, not Apple's: it says nothing.
    static func healthSignal(_ outcome: APNsOutcome) -> PoolHealth<C>.Signal? {
        switch outcome {
        case .accepted:
            return .answered
        case .rejected(let response):
            return response.status >= 500 ? .failed : .answered
        case .failed(let error):
            switch error.code {
            case .connectionFailed, .connectionLost, .timedOut, .notSent: return .failed
            default: return nil
            }
        }
    }

    /// Whether the item may go out through the pool at `slot` now (its probe counted if so).
    func admitProbe(slot: Int) -> Bool {
        let admits = pools.slots[slot].health.admits
        guard admits != .max else { return true }
        guard admits > 0 else { return false }
        pools.slots[slot].health.sent(1)
        return true
    }

    func park(_ item: DispatchItem, slot: Int) {
        pools.slots[slot].parked.append(item)
        pools.parkedCount += 1
    }

    private func apply(_ transition: PoolHealth<C>.Transition, slot: Int) {
        let key = pools.slots[slot].key
        switch transition {
        case .becameUnhealthy:
            if !pools.slots[slot].wasUnhealthy {
                pools.slots[slot].wasUnhealthy = true
                pools.unhealthy += 1
                metrics.poolHealthy(key, false)
                statistics.poolsTurnedUnhealthy += 1
                logger.warning(
                    "APNs pool unhealthy: holding its work and probing",
                    metadata: [
                        "pool": "\(key.app)/\(key.environment.rawValue)", "parked": "\(pools.slots[slot].parked.count)",
                    ])
            }
            armTimer()
        case .becameHealthy:
            pools.slots[slot].wasUnhealthy = false
            pools.unhealthy -= 1
            metrics.poolHealthy(key, true)
            let parked = pools.slots[slot].parked
            pools.slots[slot].parked = []
            pools.parkedCount -= parked.count
            waitingWork.ready.append(contentsOf: parked)
            logger.notice(
                "APNs pool healthy again: releasing its parked work",
                metadata: ["pool": "\(key.app)/\(key.environment.rawValue)", "released": "\(parked.count)"])
            schedulePump()
        }
    }

    /// The earliest probe time of an unhealthy pool (for the timer).
    var nextProbe: C.Instant? {
        guard pools.unhealthy > 0 else { return nil }
        return pools.slots.compactMap(\.health.probeAt).min()
    }

    /// Pools whose probe delay passed start probing: their first parked notifications go out.
    func startDueProbes(now: C.Instant) {
        guard pools.unhealthy > 0 else { return }
        for index in pools.slots.indices {
            guard let probeAt = pools.slots[index].health.probeAt, probeAt <= now else { continue }
            pools.slots[index].health.probeDue()
            let probes = min(pools.slots[index].health.admits, pools.slots[index].parked.count)
            for _ in 0..<probes {
                waitingWork.ready.append(pools.slots[index].parked.removeFirst())
            }
            pools.parkedCount -= probes
        }
    }

    /// Shutdown: the parked work of every pool, for the retry topic (due now: the next owner
    /// probes again).
    func drainParked() -> [RetryScheduler.StateMachine<C>.Batch] {
        guard pools.parkedCount > 0 else { return [] }
        let now = clock.now
        var batches: [RetryScheduler.StateMachine<C>.Batch] = []
        for index in pools.slots.indices where !pools.slots[index].parked.isEmpty {
            let notifications = pools.slots[index].parked.map(\.notification)
            pools.slots[index].parked = []
            batches.append(.init(app: pools.slots[index].key.app, due: now, notifications: notifications))
        }
        pools.parkedCount = 0
        return batches
    }
}
