import SalvoPrimitives

/// Where a group member starts on a partition its group has no committed offset for: a new group,
/// a partition added to a topic, or offsets the broker expired (`offsets.retention.minutes`).
/// Partitions with a committed offset always resume from it.
public enum KafkaStartPosition: Hashable, Sendable, CustomStringConvertible {
    /// The oldest record the topic still holds: everything retained is processed.
    case earliest
    /// The end of the partition: only records produced after the assignment.
    case latest
    /// Records younger than this age when the partition is assigned; older ones are skipped.
    case newerThan(Duration)
    /// Records with a timestamp at or after this instant (milliseconds since 1970).
    case since(millisecondsSince1970: Int64)

    /// The oldest record timestamp taken, for the time-based positions.
    public func cutoffMilliseconds(now nowMilliseconds: Int64) -> Int64? {
        switch self {
        case .earliest, .latest: nil
        case .newerThan(let age): nowMilliseconds - Int64(age.wholeMilliseconds)
        case .since(let instant): instant
        }
    }

    public var description: String {
        switch self {
        case .earliest: "earliest"
        case .latest: "latest"
        case .newerThan(let age): "newer than \(age)"
        case .since(let instant): "since \(instant) ms"
        }
    }
}
