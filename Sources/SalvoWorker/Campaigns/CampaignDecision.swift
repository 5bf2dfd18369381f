/// What the worker does with a notification of a campaign, asked before intake and before each
/// dispatch (docs/campaigns.md).
package enum CampaignDecision: Sendable, Hashable {
    /// No command, or the latest is `resume`: send as usual.
    case send
    /// Paused: keep the work (within the memory bounds, else hand it to the retry topic with a
    /// due time) and send nothing.
    case hold
    /// Cancelled: complete without sending, with the outcome `cancelled`.
    case cancel
}
