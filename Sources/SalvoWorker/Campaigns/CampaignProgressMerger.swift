/// Folds the records of `salvo.campaigns` (from every worker) into per-campaign totals.
///
/// Keeps the latest record per key, as compaction would, and decides "latest" by write time, so a
/// reader that meets an uncompacted topic in any order still ends with each worker's final counts.
package struct CampaignProgressMerger: Sendable {
    package private(set) var latest: [CampaignProgressRecord.Key: CampaignProgressRecord] = [:]

    package init() {}

    /// Folds one record in; an older record of the same key is ignored. Returns whether it
    /// changed anything.
    @discardableResult
    package mutating func apply(_ record: CampaignProgressRecord) -> Bool {
        if let current = latest[record.recordKey], current.publishedAt > record.publishedAt { return false }
        guard latest[record.recordKey] != record else { return false }
        latest[record.recordKey] = record
        return true
    }

    /// The campaigns with at least one record.
    package var campaignIDs: [String] {
        Set(latest.keys.map(\.campaignID)).sorted()
    }

    /// The fleet's totals for one campaign, nil when no worker reported it.
    package func totals(for campaignID: String) -> CampaignProgressTotals? {
        var result: CampaignProgressTotals?
        for record in latest.values where record.campaignID == campaignID {
            guard var totals = result else {
                result = CampaignProgressTotals(
                    campaignID: campaignID, counters: record.counters, records: 1, firstAt: record.firstAt,
                    lastAt: record.lastAt,
                    publishedAt: record.publishedAt)
                continue
            }
            totals.counters.add(record.counters)
            totals.records += 1
            totals.firstAt = min(totals.firstAt, record.firstAt)
            totals.lastAt = max(totals.lastAt, record.lastAt)
            totals.publishedAt = max(totals.publishedAt, record.publishedAt)
            result = totals
        }
        return result
    }
}
