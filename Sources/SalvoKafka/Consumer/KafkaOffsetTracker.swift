import DequeModule

/// Computes, per partition, the offset that is safe to commit: the contiguous-done watermark.
///
/// Messages of a partition are tracked in the order they were received (ascending offsets) and
/// marked done in any order. The committable offset is the lowest tracked offset that is not
/// done yet, or, when everything tracked is done, the offset after the last one. Completing
/// offsets 0, 1, 3 and 4 but not 2 therefore commits 2, never past the unfinished message.
///
/// Memory is bounded by the number of messages received and not yet done (done ones are not
/// stored), whatever the offsets' magnitude or gaps (compacted topics, transaction markers),
/// and even if one message stays unfinished while later ones complete.
public struct KafkaOffsetTracker: Sendable {
    /// What `markDone` did.
    public enum MarkResult: Equatable, Sendable {
        /// The offset was outstanding and is now done.
        case marked
        /// The offset is not outstanding: done already, never tracked, or tracked before a
        /// rewind replaced it. Nothing changed.
        case duplicate
        /// The partition is not tracked (for example it was revoked). Nothing changed.
        case unknownPartition
    }

    private struct PartitionState: Sendable {
        let partition: KafkaTopicPartition
        /// Tracked offsets not yet done, ascending.
        var outstanding: Deque<Int64> = []
        /// The offset after the last tracked one.
        var end: Int64
        /// The last offset reported committed, if any.
        var committed: Int64?
        /// Where tracking began (the first offset received, or the one it started at).
        let origin: Int64

        init(partition: KafkaTopicPartition, end: Int64) {
            self.partition = partition
            self.end = end
            self.origin = end
        }

        var watermark: Int64 { outstanding.first ?? end }

        mutating func track(_ offset: Int64) {
            if offset < end {
                while let last = outstanding.last, last >= offset {
                    outstanding.removeLast()
                }
            }
            outstanding.append(offset)
            end = offset + 1
        }

        mutating func didCommit(_ offset: Int64) {
            committed = max(committed ?? Int64.min, offset)
        }
    }

    /// The states live in an array, found through `indices`, and are changed in place by array
    /// subscript. Changing them through a dictionary subscript (`partitions[p]?.…`) goes through
    /// `_modify` coroutines that allocate their frames: three mallocs per call, and `markDone`
    /// runs once per job.
    private var states: [PartitionState] = []
    private var indices: [KafkaTopicPartition: Int] = [:]
    /// The last partition looked up: consecutive calls are mostly for one partition, and a topic
    /// string shared by its messages compares by identity, without hashing it.
    private var lastLookup: (partition: KafkaTopicPartition, index: Int)?

    public init() {}

    private mutating func index(of partition: KafkaTopicPartition) -> Int? {
        if let lastLookup, lastLookup.partition == partition { return lastLookup.index }
        guard let index = indices[partition] else { return nil }
        lastLookup = (partition, index)
        return index
    }

    /// Records a received message. Offsets normally arrive ascending; an offset at or below an
    /// earlier one (a seek or an offset reset) forgets the outstanding offsets from it on,
    /// because they will be received again.
    public mutating func track(_ offset: Int64, in partition: KafkaTopicPartition) {
        if let index = index(of: partition) {
            states[index].track(offset)
        } else {
            indices[partition] = states.count
            states.append(PartitionState(partition: partition, end: offset))
            states[states.count - 1].track(offset)
        }
    }

    /// Starts tracking a partition at `offset`, everything before it being done: the watermark is
    /// `offset` and, until a commit is recorded, a commit candidate. For a partition that resumes
    /// at a done watermark its previous owner could not commit: without this, the group's
    /// committed offset would stay behind until a later message completed, and every restart
    /// would send again what was already done. A partition already tracked is left as it is.
    public mutating func start(at offset: Int64, in partition: KafkaTopicPartition) {
        guard indices[partition] == nil else { return }
        indices[partition] = states.count
        states.append(PartitionState(partition: partition, end: offset))
    }

    /// Marks one tracked message as fully processed.
    @discardableResult
    public mutating func markDone(_ offset: Int64, in partition: KafkaTopicPartition) -> MarkResult {
        guard let index = index(of: partition) else { return .unknownPartition }
        return states[index].outstanding.removeSorted(offset) ? .marked : .duplicate
    }

    /// The offset to commit for the partition (next offset to consume), or `nil` if untracked.
    public func committableOffset(for partition: KafkaTopicPartition) -> Int64? {
        indices[partition].map { states[$0].watermark }
    }

    /// The last offset reported through `didCommit`, or `nil`.
    public func committedOffset(for partition: KafkaTopicPartition) -> Int64? {
        indices[partition].flatMap { states[$0].committed }
    }

    /// What is known of `partition` beyond its commit, or nil when it is not tracked. A rewind
    /// below the last commit (a seek) makes `from` the rewound offset.
    public func progress(for partition: KafkaTopicPartition) -> KafkaPartitionProgress? {
        guard let index = indices[partition] else { return nil }
        let state = states[index]
        let from = min(state.committed ?? state.origin, state.watermark)
        return KafkaPartitionProgress(from: from, to: state.end, open: state.outstanding.filter { $0 >= from })
    }

    /// Partitions whose watermark moved past what was last committed, with the offset to commit.
    public func commitCandidates() -> [KafkaTopicPartition: Int64] {
        var candidates: [KafkaTopicPartition: Int64] = [:]
        for state in states where state.watermark > (state.committed ?? Int64.min) {
            candidates[state.partition] = state.watermark
        }
        return candidates
    }

    /// Commit candidates limited to some partitions (those being revoked).
    public func commitCandidates(in subset: some Sequence<KafkaTopicPartition>) -> [KafkaTopicPartition: Int64] {
        var candidates: [KafkaTopicPartition: Int64] = [:]
        for partition in subset {
            if let index = indices[partition], states[index].watermark > (states[index].committed ?? Int64.min) {
                candidates[partition] = states[index].watermark
            }
        }
        return candidates
    }

    /// Records a successful commit. Older results arriving late never move the mark backwards.
    public mutating func didCommit(_ offsets: [KafkaTopicPartition: Int64]) {
        for (partition, offset) in offsets {
            if let index = indices[partition] { states[index].didCommit(offset) }
        }
    }

    /// Forgets partitions (revoked or lost): later `markDone` calls for them are ignored.
    public mutating func remove(_ removed: some Sequence<KafkaTopicPartition>) {
        for partition in removed {
            guard let index = indices.removeValue(forKey: partition) else { continue }
            // The last state takes the removed one's place.
            let last = states.count - 1
            if index != last {
                states.swapAt(index, last)
                indices[states[index].partition] = index
            }
            states.removeLast()
        }
        lastLookup = nil
    }

    /// Messages received and not yet done, over all partitions.
    public var outstandingCount: Int {
        states.reduce(0) { $0 + $1.outstanding.count }
    }

    /// Messages received and not yet done in one partition.
    public func outstandingCount(for partition: KafkaTopicPartition) -> Int {
        indices[partition].map { states[$0].outstanding.count } ?? 0
    }

    /// The partitions being tracked.
    public var trackedPartitions: Set<KafkaTopicPartition> {
        Set(indices.keys)
    }
}

extension Deque<Int64> {
    /// Removes `value` from this ascending deque. Completion is usually near the front, so the
    /// front is checked before a binary search.
    mutating func removeSorted(_ value: Int64) -> Bool {
        if first == value {
            removeFirst()
            return true
        }
        var low = startIndex
        var high = endIndex
        while low < high {
            let middle = low + (high - low) / 2
            if self[middle] < value {
                low = middle + 1
            } else {
                high = middle
            }
        }
        guard low < endIndex, self[low] == value else { return false }
        remove(at: low)
        return true
    }
}
