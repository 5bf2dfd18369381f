/// One job in a lane: the lane scheduler hands out (unit, index) slots, so a 100,000-token
/// campaign is one entry and its notifications are built one at a time, as credit allows.
///
/// One reference and three integers, so that a slot costs one retain, not a copy of the job's
/// fields; the job is reached through the shared part (``PushNotification/Shared/origin``), so a
/// job costs one object besides itself. As a class of its own it was a second allocation per job,
/// about 500 instructions of a per-user push with its release.
struct DispatchUnit: Sendable {
    /// The job's part of each notification, built once.
    let shared: PushNotification.Shared
    /// 1 for a job; a retry record's attempt for its tokens.
    let attempt: Int
    let metricsLane: MetricsLane
    /// The Kafka record's timestamp, for the end-to-end latency histogram.
    let enqueuedAtMilliseconds: Int64?

    init(job: Job, reference: JobReference, attempt: Int, metricsLane: MetricsLane, enqueuedAtMilliseconds: Int64?) {
        self.shared = job.shared(reference)
        self.attempt = attempt
        self.metricsLane = metricsLane
        self.enqueuedAtMilliseconds = enqueuedAtMilliseconds
    }

    /// Shared by every notification of the job (its strings are not copied per token).
    var reference: JobReference { shared.job }

    /// Always set: the shared part is built from the job.
    var job: Job { shared.origin! }

    func notification(at index: Int) -> PushNotification {
        job.notification(at: index, shared: shared, attempt: attempt)
    }

    /// Notifications `range` of the job, built (what a hand-off or a hold takes).
    func notifications(in range: Range<Int>) -> [PushNotification] {
        range.map(notification(at:))
    }
}
