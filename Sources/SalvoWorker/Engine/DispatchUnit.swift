/// One job in a lane: the lane scheduler hands out (unit, index) slots, so a 100,000-token
/// campaign is one entry and its notifications are built one at a time, as credit allows.
///
/// A class so that a slot costs one retain, not a copy of the job's fields.
final class DispatchUnit: Sendable {
    let job: Job
    /// Shared by every notification of the job (its strings are not copied per token).
    let reference: JobReference
    /// 1 for a job; a retry record's attempt for its tokens.
    let attempt: Int
    /// `priority`, `campaign` or `retry`: the metrics lane.
    let metricsLane: String
    /// The Kafka record's timestamp, for the end-to-end latency histogram.
    let enqueuedAtMilliseconds: Int64?

    init(job: Job, reference: JobReference, attempt: Int, metricsLane: String, enqueuedAtMilliseconds: Int64?) {
        self.job = job
        self.reference = reference
        self.attempt = attempt
        self.metricsLane = metricsLane
        self.enqueuedAtMilliseconds = enqueuedAtMilliseconds
    }

    func notification(at index: Int) -> PushNotification {
        job.notification(at: index, job: reference, attempt: attempt)
    }
}
