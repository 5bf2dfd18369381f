import NIOCore

/// One request the pool owes an outcome for: a position in its caller's submission (the
/// request itself stays in the caller's array, so moving this around costs one reference), and
/// what its replays need to know.
struct APNsPendingRequest {
    let submission: APNsPoolSubmission
    /// Its position in the caller's batch, passed back with the outcome.
    let index: Int
    /// Times it was replayed after not being sent.
    var replays = 0
    /// Whether it was already replayed after ExpiredProviderToken (that happens once).
    var replayedWithRefreshedToken = false
    /// When it last left the pool for a connection: the start of its dispatch round, whose clock
    /// reading also gave its deadline (`salvo_apns_request_duration_seconds`).
    var sentAt = NIODeadline.uptimeNanoseconds(0)

    init(_ submission: APNsPoolSubmission, index: Int) {
        self.submission = submission
        self.index = index
    }

    var request: APNsRequest { self.submission.requests[self.index] }

    func deliver(_ outcome: APNsOutcome) {
        if let handler = self.submission.handler {
            handler(self.index, outcome)
        } else if case .single(let continuation) = self.submission.sink {
            continuation.resume(returning: outcome)
        }
    }
}
