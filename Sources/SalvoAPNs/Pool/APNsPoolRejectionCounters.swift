import Metrics

/// `salvo_apns_requests_total{pool, status, reason}` for every answer but 200, created on first
/// use and cached. Both labels are bounded whoever answers: a status APNs does not document is
/// `other`, a reason Apple does not document is `other` (``APNsReason/metricLabel``), a missing
/// one empty.
///
/// Confined to the pool's event loop (the `Sendable` conformance is the pool metrics'); rejections
/// are rare, so a dictionary lookup each is fine.
final class APNsPoolRejectionCounters: @unchecked Sendable {
    // @unchecked: `counters` is only touched on the pool's event loop, like the pool core.
    private struct Key: Hashable {
        var status: String
        var reason: String
    }

    /// The statuses APNs answers with (Apple's documentation lists these and no others).
    static let documentedStatuses: Set<Int> = [200, 400, 403, 404, 405, 410, 413, 429, 500, 503]

    private let pool: String
    private var counters: [Key: Counter] = [:]

    init(pool: String) {
        self.pool = pool
    }

    func increment(status: Int, reason: APNsReason?) {
        let key = Key(
            status: Self.documentedStatuses.contains(status) ? String(status) : "other",
            reason: reason?.metricLabel ?? "")
        if let counter = counters[key] {
            counter.increment()
            return
        }
        let counter = Counter(
            label: "salvo_apns_requests_total",
            dimensions: [("pool", pool), ("status", key.status), ("reason", key.reason)])
        counters[key] = counter
        counter.increment()
    }
}
