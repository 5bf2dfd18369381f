/// One caller's requests, from `send` until each has an outcome. Requests leave in order as
/// stream credit allows (`next`); the caller, suspended meanwhile, resumes once the last one left
/// (`admitted`).
final class APNsPoolSubmission {
    let requests: [APNsRequest]
    var next = 0
    let sink: APNsOutcomeSink
    /// The sink's handler when it is one, read per outcome. Kept apart because the sink also
    /// holds a `CheckedContinuation`, whose layout the standard library does not freeze
    /// (hot-path rule 3, docs/performance-notes.md: ~100 instructions per outcome).
    let handler: (@Sendable (Int, APNsOutcome) -> Void)?
    let admitted: CheckedContinuation<Void, Never>?

    init(requests: [APNsRequest], sink: APNsOutcomeSink, admitted: CheckedContinuation<Void, Never>?) {
        self.requests = requests
        self.sink = sink
        if case .handler(let handler) = sink { self.handler = handler } else { self.handler = nil }
        self.admitted = admitted
    }

    var remaining: Int { self.requests.count - self.next }

    /// The next request to leave.
    func take() -> APNsPendingRequest {
        defer { self.next += 1 }
        return APNsPendingRequest(self, index: self.next)
    }
}
