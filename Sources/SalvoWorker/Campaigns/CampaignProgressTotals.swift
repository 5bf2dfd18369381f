/// A campaign's progress over the whole fleet: the sum of every worker's latest record.
package struct CampaignProgressTotals: Sendable, Hashable {
    package var campaignID: String
    package var counters: CampaignCounters
    /// Worker records (instance × slice) that went into the sum.
    package var records: Int
    /// The first and latest outcome any worker counted.
    package var firstAt: UTCTimestamp
    package var lastAt: UTCTimestamp
    /// The newest record's write time: how fresh the totals are.
    package var publishedAt: UTCTimestamp

    package init(
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
    package var averageRate: Double? {
        let milliseconds = lastAt.millisecondsSince1970 - firstAt.millisecondsSince1970
        guard milliseconds > 0 else { return nil }
        return Double(counters.finished) * 1000 / Double(milliseconds)
    }

    /// Finished notifications per second from `earlier` to these totals (for a live view); nil
    /// when no time passed between their records.
    package func rate(since earlier: CampaignProgressTotals) -> Double? {
        let milliseconds = publishedAt.millisecondsSince1970 - earlier.publishedAt.millisecondsSince1970
        guard milliseconds > 0 else { return nil }
        return Double(counters.finished - earlier.counters.finished) * 1000 / Double(milliseconds)
    }
}
