import SalvoAPNs

/// The requests of one dispatch round for one pool, and the items they came from, so an outcome
/// (reported by index) finds its notification. One allocation per pool per round, not per
/// notification.
final class DispatchBatch {
    var requests: [APNsRequest] = []
    var items: [DispatchItem] = []
}
