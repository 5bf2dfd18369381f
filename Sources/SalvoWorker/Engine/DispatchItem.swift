import SalvoAPNs

/// A notification on its way to APNs, with what its outcome needs besides the notification: the
/// metrics lane and the Kafka timestamp for the end-to-end latency.
struct DispatchItem: Sendable {
    var notification: PushNotification
    var metricsLane: String
    var enqueuedAtMilliseconds: Int64?
}

/// The requests of one dispatch round for one pool, and the items they came from, so an outcome
/// (reported by index) finds its notification. One allocation per pool per round, not per
/// notification.
final class DispatchBatch {
    var requests: [APNsRequest] = []
    var items: [DispatchItem] = []
}
