/// What happened to one notification of a campaign, as the progress ledger counts it.
package enum CampaignOutcome: Sendable, Hashable {
    /// APNs accepted it (200).
    case accepted
    /// APNs said the token is dead or wrong (the feedback reasons, e.g. `Unregistered`).
    case feedback(reason: String)
    /// Dead-lettered. `afterSending`: APNs answered it (a permanent rejection, or retries used
    /// up), as opposed to input that was never sent (an invalid token).
    case deadLettered(afterSending: Bool)
    /// Dropped by a cancel command.
    case cancelled
    /// Answered with a retriable outcome and scheduled again (held or handed to the retry topic).
    case retryScheduled
}
