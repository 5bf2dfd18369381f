/// A notification on its way to APNs, with what its outcome needs besides the notification: the
/// metrics lane and the Kafka timestamp for the end-to-end latency.
struct DispatchItem: Sendable {
    var notification: PushNotification
    var metricsLane: MetricsLane
    var enqueuedAtMilliseconds: Int64?
}
