/// One caller's requests, from `send` until each has an outcome. Requests leave in order as
/// stream credit allows (`next`); the caller, suspended meanwhile, resumes once the last one left
/// (`admitted`).
final class APNsPoolSubmission {
    let requests: [APNsRequest]
    var next = 0
    let sink: APNsOutcomeSink
    let admitted: CheckedContinuation<Void, Never>?

    init(requests: [APNsRequest], sink: APNsOutcomeSink, admitted: CheckedContinuation<Void, Never>?) {
        self.requests = requests
        self.sink = sink
        self.admitted = admitted
    }

    var remaining: Int { self.requests.count - self.next }

    /// The next request to leave.
    func take() -> APNsPendingRequest {
        defer { self.next += 1 }
        return APNsPendingRequest(self, index: self.next)
    }
}
