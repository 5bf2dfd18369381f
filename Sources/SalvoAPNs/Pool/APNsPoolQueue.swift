import DequeModule

/// Requests waiting for stream credit: replays first (they were admitted already), then the
/// callers in arrival order. Bounded by ``APNsConnectionPool/Configuration/maximumWaitingCallers``;
/// replays need no bound of their own, they come out of stream credit.
struct APNsPoolQueue {
    private var replays = Deque<APNsPendingRequest>()
    private var submissions = Deque<APNsPoolSubmission>()
    private let maximumWaitingCallers: Int
    /// Requests waiting, for the `salvo_apns_queued` gauge.
    private(set) var count = 0

    init(maximumWaitingCallers: Int) {
        self.maximumWaitingCallers = maximumWaitingCallers
    }

    var isEmpty: Bool { self.count == 0 }
    var hasRoomForCaller: Bool { self.submissions.count < self.maximumWaitingCallers }

    mutating func appendReplay(_ request: APNsPendingRequest) {
        self.replays.append(request)
        self.count += 1
    }

    mutating func append(_ submission: APNsPoolSubmission) {
        self.submissions.append(submission)
        self.count += submission.remaining
    }

    /// The next request to send, and the submission it emptied (whose caller may resume).
    mutating func popFirst() -> (APNsPendingRequest, finished: APNsPoolSubmission?)? {
        if let replay = self.replays.popFirst() {
            self.count -= 1
            return (replay, nil)
        }
        guard let head = self.submissions.first else { return nil }
        let request = head.take()
        self.count -= 1
        if head.remaining == 0 {
            self.submissions.removeFirst()
            return (request, head)
        }
        return (request, nil)
    }

    /// Empties the queue: every waiting request, and every submission (to resume its caller).
    mutating func removeAll() -> (requests: [APNsPendingRequest], submissions: [APNsPoolSubmission]) {
        var requests = Array(self.replays)
        for submission in self.submissions {
            while submission.remaining > 0 { requests.append(submission.take()) }
        }
        let submissions = Array(self.submissions)
        self.replays.removeAll()
        self.submissions.removeAll()
        self.count = 0
        return (requests, submissions)
    }
}
