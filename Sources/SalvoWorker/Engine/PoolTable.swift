import DequeModule
import SalvoAPNs

/// The APNs pools the core sends through, each with its health and the work parked while it is
/// unhealthy, and the counts dispatch asks per notification. Outcomes find a pool by index (the
/// submit closure carries it), so no key is hashed per notification; the decisions are each
/// slot's ``PoolHealth``.
struct PoolTable<C: Clock> where C.Duration == Duration {
    struct Slot {
        let key: WorkerPoolKey
        let pool: any WorkerDispatchPool
        var health: PoolHealth<C>
        var parked: Deque<DispatchItem> = []
        /// Counted in ``PoolTable/unhealthy`` (unhealthy or probing).
        var wasUnhealthy = false
    }

    /// Sorted by app and environment, so the order (and a test's) does not depend on hashing.
    var slots: [Slot]
    let index: [WorkerPoolKey: Int]
    /// Pools not healthy now: while 0, dispatch never looks at health.
    var unhealthy = 0
    /// Notifications parked in unhealthy pools' slots (they count against the dispatch window).
    var parkedCount = 0

    init(pools: [WorkerPoolKey: any WorkerDispatchPool], health: PoolHealthConfiguration) {
        let keys = pools.keys.sorted { ($0.app, $0.environment.rawValue) < ($1.app, $1.environment.rawValue) }
        self.slots = keys.map { Slot(key: $0, pool: pools[$0]!, health: PoolHealth(configuration: health)) }
        self.index = Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, $0) })
    }
}
