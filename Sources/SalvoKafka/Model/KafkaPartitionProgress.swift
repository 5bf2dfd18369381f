/// What a consumer knows of one partition's offsets beyond its commit: every offset in
/// `from..<to` was received, and all of them but `open` are done (``KafkaOffsetTracker``). A
/// worker records it so that the partition's next owner skips the done ones even when the commit
/// could not follow them (an older offset still open, or a commit that failed).
public struct KafkaPartitionProgress: Hashable, Sendable {
    /// The last committed offset, or where tracking began.
    public var from: Int64
    /// The offset after the last one received.
    public var to: Int64
    /// Received and not done, ascending (none below `from`).
    public var open: [Int64]

    public init(from: Int64, to: Int64, open: [Int64]) {
        self.from = from
        self.to = to
        self.open = open
    }

    /// Offsets in `from..<to` that are done.
    public var doneCount: Int64 { to - from - Int64(open.count) }

    /// Whether `offset` is in `from..<to` and not open.
    public func isDone(_ offset: Int64) -> Bool {
        guard offset >= from, offset < to else { return false }
        var low = open.startIndex
        var high = open.endIndex
        while low < high {
            let middle = (low + high) / 2
            if open[middle] < offset { low = middle + 1 } else { high = middle }
        }
        return low == open.endIndex || open[low] != offset
    }
}
