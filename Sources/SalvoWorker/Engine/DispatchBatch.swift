import SalvoAPNs

/// The requests of one dispatch round for one pool, and the items they came from, so an outcome
/// (reported by index) finds its notification. One allocation per pool per round, not per
/// notification.
final class DispatchBatch {
    var requests: [APNsRequest] = []
    var items: [DispatchItem] = []
    /// Answers received so far (one of them is sampled for the round trip).
    var answered = 0

    /// Reserves room for `capacity` notifications (what the window has free): grown by doubling
    /// instead, the two arrays' reallocations and copies cost ~600 instructions per notification.
    init(capacity: Int) {
        requests.reserveCapacity(capacity)
        items.reserveCapacity(capacity)
    }
}
