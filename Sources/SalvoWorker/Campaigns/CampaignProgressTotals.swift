/// A campaign's progress over the whole fleet: the sum of every worker's latest record.
public struct CampaignProgressTotals: Sendable, Hashable {
    public var campaignID: String
    public var counters: CampaignCounters
    /// Worker records (instance × slice) that went into the sum.
    public var records: Int
    /// The first and latest outcome any worker counted.
    public var firstAt: UTCTimestamp
    public var lastAt: UTCTimestamp
    /// The newest record's write time: how fresh the totals are.
    public var publishedAt: UTCTimestamp

    public init(
        campaignID: String, counters: CampaignCounters, records: Int, firstAt: UTCTimestamp, lastAt: UTCTimestamp,
        publishedAt: UTCTimestamp
    ) {
        self.campaignID = campaignID
        self.counters = counters
        self.records = records
        self.firstAt = firstAt
        self.lastAt = lastAt
        self.publishedAt = publishedAt
    }

    /// Finished notifications per second between the first and the latest outcome; nil before two
    /// distinct instants were seen.
    public var averageRate: Double? {
        let milliseconds = lastAt.millisecondsSince1970 - firstAt.millisecondsSince1970
        guard milliseconds > 0 else { return nil }
        return Double(counters.finished) * 1000 / Double(milliseconds)
    }

    /// Finished notifications per second from `earlier` to these totals (for a live view); nil
    /// when no time passed between their records.
    public func rate(since earlier: CampaignProgressTotals) -> Double? {
        let milliseconds = publishedAt.millisecondsSince1970 - earlier.publishedAt.millisecondsSince1970
        guard milliseconds > 0 else { return nil }
        return Double(counters.finished - earlier.counters.finished) * 1000 / Double(milliseconds)
    }
}
