/// The per-campaign counters of one worker, or of the fleet after merging
/// (schema/campaign-progress.schema.json).
///
/// Every notification of a campaign ends in exactly one of accepted, feedback, dead-lettered or
/// cancelled, so their sum is the number finished. `sent` counts the finished ones APNs answered
/// (accepted + feedback + dead letters after an answer); `sent + cancelled` is the campaign's total
/// when none of its tokens was invalid.
package struct CampaignCounters: Sendable, Hashable {
    package var sent: Int64 = 0
    package var accepted: Int64 = 0
    /// Per APNs reason (`Unregistered`, `BadDeviceToken`, …).
    package var feedback: [String: Int64] = [:]
    package var deadLettered: Int64 = 0
    package var cancelled: Int64 = 0
    /// Notifications waiting for a retry: +1 when one is scheduled, −1 when a retried attempt
    /// ends (whatever its outcome). One worker's value can be negative (another worker finished
    /// a retry it handed over through the retry topic); the fleet's sum is the number waiting.
    package var retrying: Int64 = 0

    package init() {}

    package init(
        sent: Int64 = 0, accepted: Int64 = 0, feedback: [String: Int64] = [:], deadLettered: Int64 = 0,
        cancelled: Int64 = 0,
        retrying: Int64 = 0
    ) {
        self.sent = sent
        self.accepted = accepted
        self.feedback = feedback
        self.deadLettered = deadLettered
        self.cancelled = cancelled
        self.retrying = retrying
    }

    /// Notifications that reached a final outcome.
    package var finished: Int64 { accepted + feedback.values.reduce(0, +) + deadLettered + cancelled }

    /// Counts one outcome; `isRetry`: the attempt that ended was itself a retry.
    package mutating func count(_ outcome: CampaignOutcome, isRetry: Bool = false, times: Int64 = 1) {
        if isRetry { retrying -= times }
        switch outcome {
        case .accepted:
            sent += times
            accepted += times
        case .feedback(let reason):
            sent += times
            feedback[reason, default: 0] += times
        case .deadLettered(let afterSending):
            if afterSending { sent += times }
            deadLettered += times
        case .cancelled:
            cancelled += times
        case .retryScheduled:
            retrying += times
        }
    }

    /// Adds another worker's counters (merging is a sum: each worker counts only its own work).
    package mutating func add(_ other: CampaignCounters) {
        sent += other.sent
        accepted += other.accepted
        feedback.merge(other.feedback, uniquingKeysWith: +)
        deadLettered += other.deadLettered
        cancelled += other.cancelled
        retrying += other.retrying
    }
}
