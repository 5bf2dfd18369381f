/// Lane weights and capacities, shared by every ``LaneScheduler`` (kept outside the generic type so
/// a worker configuration can hold one). Checked once, by ``validate()``.
public struct LaneConfiguration: Sendable, Hashable {
    /// Share of the priority lane while both have work. Default: 4.
    public var priorityWeight: Int
    /// Share of the campaign lane while both have work. Default: 1 (so, by default, 4 of every 5
    /// notifications are per-user while both lanes are busy, and a campaign still moves).
    public var campaignWeight: Int
    /// Notifications a lane may have queued before ``LaneScheduler/hasCapacity(in:)`` says to
    /// pause that lane's partitions. Enqueueing is never refused (the record is already
    /// consumed); this is the signal that keeps memory bounded. Default: 250,000.
    public var capacityPerLane: Int
    /// The queueing a request may meet behind the others in flight: the flight limit comes down
    /// while round trips exceed their recent minimum by more than this, so a per-user push does
    /// not wait behind a whole window of campaign requests (see `AdaptiveWindow`). nil keeps every
    /// stream of the pools in use. Default: 5 ms.
    public var queueDelayTarget: Duration?

    public init(
        priorityWeight: Int = 4, campaignWeight: Int = 1, capacityPerLane: Int = 250_000,
        queueDelayTarget: Duration? = .milliseconds(5)
    ) {
        self.priorityWeight = priorityWeight
        self.campaignWeight = campaignWeight
        self.capacityPerLane = capacityPerLane
        self.queueDelayTarget = queueDelayTarget
    }

    /// Throws naming the `lanes.…` key of a value outside its range (``ConfigurationBounds``).
    public func validate() throws(SalvoWorkerError) {
        try ConfigurationBounds.laneWeight.check(priorityWeight, key: "lanes.priority_weight")
        try ConfigurationBounds.laneWeight.check(campaignWeight, key: "lanes.campaign_weight")
        try ConfigurationBounds.capacityPerLane.check(capacityPerLane, key: "lanes.capacity_per_lane")
        if let queueDelayTarget {
            try ConfigurationBounds.queueDelayTarget.check(queueDelayTarget, key: "lanes.queue_delay_target")
        }
    }

    func weight(of lane: Lane) -> Int {
        lane == .priority ? priorityWeight : campaignWeight
    }
}
