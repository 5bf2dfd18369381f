/// A caller's requests that did not all find stream credit: they leave in order as credit frees,
/// and the caller, suspended meanwhile, resumes once the last one left (`admitted`).
final class APNsPoolSubmission {
    let requests: [APNsRequest]
    var next: Int
    let sink: APNsOutcomeSink
    let admitted: CheckedContinuation<Void, Never>?

    init(requests: [APNsRequest], next: Int, sink: APNsOutcomeSink, admitted: CheckedContinuation<Void, Never>?) {
        self.requests = requests
        self.next = next
        self.sink = sink
        self.admitted = admitted
    }

    var remaining: Int { self.requests.count - self.next }
}
