/// One request the pool owes an outcome for, with what its replays need to know.
struct APNsPendingRequest: Sendable {
    var request: APNsRequest
    /// Its position in the caller's batch, passed back with the outcome.
    var index: Int
    var sink: APNsOutcomeSink
    /// Times it was replayed after not being sent.
    var replays = 0
    /// Whether it was already replayed after ExpiredProviderToken (that happens once).
    var replayedWithRefreshedToken = false
}
