/// Which notifications of one multi-token job are done for its checkpoint, and the length of the
/// done prefix: the tokens a new owner may skip when it resumes the job (``JobCheckpoint``).
///
/// A notification is done here once it is terminal *and* every record it caused (feedback event,
/// dead letter, retry hand-off) was acknowledged, as for the job itself: a checkpoint past a
/// notification whose record was lost would lose that record. Abandoned notifications (a revoke)
/// are never done, so the prefix stops before them. Kept in the ledger entry and changed in place
/// there, so marking never copies the bits.
package struct TokenProgress: Sendable, Hashable {
    package let jobID: String
    package let count: Int
    /// The done prefix: every index below it is done.
    package private(set) var prefix: Int
    private var bits: [UInt64]
    /// Unacknowledged records per token index (rare: only rejected or handed-off tokens).
    private var pendingRecords: [Int32: Int] = [:]

    /// `first`: the prefix a checkpoint already skipped.
    package init(jobID: String, count: Int, first: Int = 0) {
        self.jobID = jobID
        self.count = count
        self.prefix = first
        self.bits = Array(repeating: 0, count: (count + 63) / 64)
    }

    /// Notification `index` is terminal, having caused `records` records not yet acknowledged.
    mutating func finished(_ index: Int32, records: Int) {
        guard records > 0 else { return markDone(index) }
        pendingRecords[index, default: 0] += records
    }

    /// A record of notification `index` was acknowledged.
    mutating func recordAcknowledged(_ index: Int32) {
        guard let pending = pendingRecords[index] else { return }
        if pending > 1 {
            pendingRecords[index] = pending - 1
        } else {
            pendingRecords[index] = nil
            markDone(index)
        }
    }

    private mutating func markDone(_ index: Int32) {
        let position = Int(index)
        guard position >= 0, position < count else { return }
        bits[position >> 6] |= 1 << UInt64(position & 63)
        while prefix < count, bits[prefix >> 6] & (1 << UInt64(prefix & 63)) != 0 { prefix += 1 }
    }
}
