/// Which notifications of one multi-token job are done for its checkpoint, and how many of its
/// sends a crash could repeat: the tokens a new owner may skip when it resumes the job
/// (``PartitionCheckpoint``), and what the unconfirmed-sends bound counts.
///
/// A notification is done here once it is terminal *and* every record it caused (feedback event,
/// dead letter, retry hand-off) was acknowledged, as for the job itself: a checkpoint past a
/// notification whose record was lost would lose that record. Abandoned notifications (a revoke)
/// are never done. Kept in the ledger entry and changed in place there, so marking never copies
/// the bits.
///
/// Three counts follow the done set: `taken` (notifications that left the lane for sending),
/// `written` (done when the last checkpoint was written) and `confirmed` (done in the last
/// checkpoint Kafka acknowledged). `taken − confirmed` is what a crash now could send twice.
package struct TokenProgress: Sendable, Hashable {
    package let jobID: String
    package let count: Int
    /// The done prefix: every index below it is done.
    package private(set) var prefix: Int
    /// Done notifications, wherever they are (the prefix included).
    package private(set) var doneCount: Int
    /// Notifications taken from the lane for sending, plus those a checkpoint let this job skip.
    package private(set) var taken: Int
    /// ``doneCount`` when the last checkpoint naming this job was written.
    package private(set) var written: Int
    /// ``doneCount`` in the last checkpoint Kafka acknowledged (or the one this job resumed from).
    package private(set) var confirmed: Int
    private var bits: [UInt64]
    /// Unacknowledged records per token index (rare: only rejected or handed-off tokens).
    private var pendingRecords: [Int32: Int] = [:]

    /// `done`: what a checkpoint already skipped (indexes among the job's valid tokens).
    package init(jobID: String, count: Int, done: [Range<Int>] = []) {
        self.jobID = jobID
        self.count = count
        self.prefix = 0
        self.doneCount = 0
        self.taken = 0
        self.written = 0
        self.confirmed = 0
        self.bits = Array(repeating: 0, count: (count + 63) / 64)
        for range in done {
            for index in range.clamped(to: 0..<count) where !isDone(index) {
                bits[index >> 6] |= 1 << UInt64(index & 63)
                doneCount += 1
            }
        }
        advancePrefix()
        self.taken = doneCount
        self.written = doneCount
        self.confirmed = doneCount
    }

    /// What a crash now could send twice: taken and not in an acknowledged checkpoint. Paths that
    /// finish notifications without taking them (a cancelled campaign) can make it negative.
    package var unconfirmed: Int { taken - confirmed }

    /// Done since the last checkpoint was written.
    package var unwritten: Int { doneCount - written }

    /// `count` notifications left the lane for sending.
    mutating func onTaken(_ count: Int) {
        taken += count
    }

    /// A checkpoint naming this job is being written; returns the done count it records.
    mutating func onWritten() -> Int {
        written = doneCount
        return doneCount
    }

    /// Kafka acknowledged a checkpoint that recorded `done` of this job.
    mutating func onConfirmed(_ done: Int) {
        confirmed = max(confirmed, done)
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

    /// The done notifications as ascending, disjoint, non-adjacent ranges. Walks the bits above
    /// the prefix: called when a checkpoint is written, never per notification.
    package func doneRanges() -> [Range<Int>] {
        var ranges: [Range<Int>] = prefix > 0 ? [0..<prefix] : []
        var index = prefix
        while index < count {
            let word = bits[index >> 6] >> UInt64(index & 63)
            if word == 0 {
                index = (index | 63) + 1
                continue
            }
            index += word.trailingZeroBitCount
            guard index < count else { break }
            let start = index
            while index < count, isDone(index) { index += 1 }
            ranges.append(start..<index)
        }
        return ranges
    }

    /// The ranges of notifications not done, ascending: what a resumed job still sends.
    package func undoneRanges() -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var start = 0
        for done in doneRanges() {
            if done.lowerBound > start { ranges.append(start..<done.lowerBound) }
            start = done.upperBound
        }
        if start < count { ranges.append(start..<count) }
        return ranges
    }

    private func isDone(_ index: Int) -> Bool {
        bits[index >> 6] & (1 << UInt64(index & 63)) != 0
    }

    private mutating func markDone(_ index: Int32) {
        let position = Int(index)
        guard position >= 0, position < count, !isDone(position) else { return }
        bits[position >> 6] |= 1 << UInt64(position & 63)
        doneCount += 1
        if position == prefix { advancePrefix() }
    }

    private mutating func advancePrefix() {
        while prefix < count, isDone(prefix) { prefix += 1 }
    }
}
