import SalvoPrimitives

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Counts the outcomes of each campaign in one worker, for `salvo.campaigns`.
///
/// A value type for the worker core to own on its event loop (no lock per outcome); the publisher
/// takes the changed campaigns' records from it periodically. Memory is bounded: a campaign with no
/// outcome for `idleEviction` is dropped once its latest counts were taken for publishing, and if
/// it becomes active again it is counted in a new slice (a new record key), so the published
/// counts of the old slice stay and still add up.
package struct CampaignProgressLedger: Sendable {
    private struct Entry: Sendable {
        var slice: Int64
        var counters = CampaignCounters()
        var firstAt: UTCTimestamp
        var lastAt: UTCTimestamp
        var changed = true
    }

    /// This worker instance's id in the records it writes.
    package let worker: String
    /// Default: 1 hour.
    package var idleEviction: Duration
    private var entries: [String: Entry] = [:]
    private var nextSlice: Int64 = 0

    package init(worker: String = CampaignProgressLedger.makeWorkerID(), idleEviction: Duration = .seconds(3600)) {
        self.worker = worker
        self.idleEviction = idleEviction
    }

    /// `<host>-<pid>-<random>`: unique per process run, readable in `salvo campaign status`.
    package static func makeWorkerID() -> String {
        var name = [CChar](repeating: 0, count: 256)
        let host = gethostname(&name, name.count) == 0 ? String(cCharBuffer: name) : "worker"
        return "\(host.isEmpty ? "worker" : host)-\(getpid())-\(String(UInt32.random(in: 0...UInt32.max), radix: 36))"
    }

    /// Campaigns currently counted.
    package var campaignCount: Int { entries.count }

    /// The counters of one campaign in this worker (its current slice).
    package func counters(for campaignID: String) -> CampaignCounters? {
        entries[campaignID]?.counters
    }

    /// Counts `times` notifications of `campaignID` that ended with `outcome`. `isRetry`: the
    /// attempt that ended was a retry (it takes one off `retrying`).
    package mutating func count(
        _ outcome: CampaignOutcome, campaignID: String, isRetry: Bool = false, times: Int64 = 1, at now: UTCTimestamp
    ) {
        guard times > 0 else { return }
        if entries[campaignID] == nil {
            entries[campaignID] = Entry(slice: nextSlice, firstAt: now, lastAt: now)
            nextSlice += 1
        }
        entries[campaignID]!.counters.count(outcome, isRetry: isRetry, times: times)
        entries[campaignID]!.lastAt = max(entries[campaignID]!.lastAt, now)
        entries[campaignID]!.changed = true
    }

    /// The records of the campaigns that changed since the last call, stamped `now`; they count as
    /// published from here on (a publisher that fails to write them keeps them and writes them, or
    /// newer ones, next time). Drops campaigns idle for `idleEviction`.
    package mutating func takeChangedRecords(now: UTCTimestamp) -> [CampaignProgressRecord] {
        var records: [CampaignProgressRecord] = []
        let idleBefore = now.advanced(by: .zero - idleEviction)
        for (campaignID, entry) in entries {
            if entry.changed {
                records.append(record(campaignID, entry, now: now))
                entries[campaignID]!.changed = false
            } else if entry.lastAt < idleBefore {
                entries[campaignID] = nil
            }
        }
        return records.sorted { $0.campaignID < $1.campaignID }
    }

    /// Every campaign's record, changed or not (for a final publish at shutdown or a status page).
    package func allRecords(now: UTCTimestamp) -> [CampaignProgressRecord] {
        entries.map { record($0.key, $0.value, now: now) }.sorted { $0.campaignID < $1.campaignID }
    }

    private func record(_ campaignID: String, _ entry: Entry, now: UTCTimestamp) -> CampaignProgressRecord {
        CampaignProgressRecord(
            campaignID: campaignID, worker: worker, slice: entry.slice, counters: entry.counters,
            firstAt: entry.firstAt,
            lastAt: entry.lastAt, publishedAt: now)
    }
}
