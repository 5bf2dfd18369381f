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

    public init(priorityWeight: Int = 4, campaignWeight: Int = 1, capacityPerLane: Int = 250_000) {
        self.priorityWeight = priorityWeight
        self.campaignWeight = campaignWeight
        self.capacityPerLane = capacityPerLane
    }

    /// Throws naming the `lanes.…` key of a value outside its range (``ConfigurationBounds``).
    public func validate() throws(SalvoWorkerError) {
        try ConfigurationBounds.laneWeight.check(priorityWeight, key: "lanes.priority_weight")
        try ConfigurationBounds.laneWeight.check(campaignWeight, key: "lanes.campaign_weight")
        try ConfigurationBounds.capacityPerLane.check(capacityPerLane, key: "lanes.capacity_per_lane")
    }

    func weight(of lane: Lane) -> Int {
        lane == .priority ? priorityWeight : campaignWeight
    }
}
