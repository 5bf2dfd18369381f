import Synchronization

extension LoadTestMeasurement {
    /// What one named campaign was expected to do and what the mock and the feedback topic saw of
    /// it: the raw material of a control action's report.
    struct CampaignTally: Sendable {
        /// Tokens in the campaign's good jobs (duplicates not counted): the `total` of
        /// `sent + cancelled = total`.
        var notifications = 0
        var expectedDelivered = 0
        var expectedFeedback: [String: Int] = [:]
        var seenFeedback: [String: Int] = [:]
        /// When the mock recorded each first delivery (wall clock, ms), in the order observed.
        var deliveredAt: [Int64] = []
    }

    /// What the run knows of one named campaign, copied out of the lock.
    public struct CampaignView: Sendable, Hashable {
        public var notifications: Int
        public var expectedDelivered: Int
        /// First deliveries the mock recorded, wall clock ms, sorted.
        public var deliveredAt: [Int64]
        public var feedbackSeen: Int
    }

    /// The campaign was cancelled: what it has not delivered yet is no longer expected, so the
    /// run's expectations (and its completion) leave the campaign out from now on; its own
    /// section of the report judges it instead.
    public func markCancelled(_ name: String) {
        _ = state.withLock { $0.cancelled.insert(name) }
    }

    /// First deliveries of the campaign the mock recorded so far.
    public func delivered(campaign name: String) -> Int {
        state.withLock { $0.campaigns[name]?.deliveredAt.count ?? 0 }
    }

    public func campaign(_ name: String) -> CampaignView {
        state.withLock { state in
            let tally = state.campaigns[name] ?? CampaignTally()
            return CampaignView(
                notifications: tally.notifications, expectedDelivered: tally.expectedDelivered,
                deliveredAt: tally.deliveredAt.sorted(),
                feedbackSeen: tally.seenFeedback.values.reduce(0, +))
        }
    }

    /// The expectations and observations without the cancelled campaigns' notifications (both
    /// sides, so what they delivered before the cancel neither counts nor is missing).
    static func excludingCancelled(_ state: State) -> (LoadTestExpectations, LoadTestObservations) {
        var expectations = state.expectations
        var observations = state.observations
        let lane = LoadTestLane.campaign.rawValue
        for name in state.cancelled {
            guard let tally = state.campaigns[name] else { continue }
            expectations.delivered[lane, default: 0] -= tally.expectedDelivered
            observations.delivered[lane, default: 0] -= tally.deliveredAt.count
            for (reason, count) in tally.expectedFeedback { expectations.feedback[reason, default: 0] -= count }
            for (reason, count) in tally.seenFeedback { observations.feedback[reason, default: 0] -= count }
        }
        return (expectations, observations)
    }
}
