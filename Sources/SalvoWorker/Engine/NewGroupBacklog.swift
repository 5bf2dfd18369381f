import SalvoKafka
import SalvoPrimitives

/// Whether a lane's consumer group may start on what its topics hold, when `kafka.start_from`
/// is left out: a group with no committed offset on any partition that holds records older than
/// the default start age is most likely a typo or a rename of `group_id`, and starting would
/// re-send a slice of old campaigns (docs/decisions/new-group-start.md).
struct NewGroupBacklog: Equatable {
    enum Verdict: Equatable {
        case start
        /// One line naming the group, the backlog and the key to set.
        case refuse(String)
    }

    var group: String
    var topics: [String]
    /// Records older than this are a backlog the group must be told about.
    var bound: Duration

    /// - Parameters:
    ///   - backlog: The oldest record of each partition that holds one.
    ///   - committed: The group's committed offsets for those partitions (`nil` entries: none).
    func verdict(
        backlog: [KafkaPartitionBacklog], committed: [KafkaTopicPartition: Int64?], nowMilliseconds: Int64
    ) -> Verdict {
        let cutoff = nowMilliseconds - Int64(bound.wholeMilliseconds)
        let old = backlog.filter { ($0.oldestTimestampMilliseconds ?? cutoff) < cutoff }
        guard !old.isEmpty else { return .start }
        guard committed.values.allSatisfy({ $0 == nil }) else { return .start }
        let records = backlog.reduce(Int64(0)) { $0 + $1.records }
        let oldest = old.compactMap(\.oldestTimestampMilliseconds).min() ?? cutoff
        let age = Self.age(milliseconds: nowMilliseconds - oldest)
        let named = topics.joined(separator: ", ")
        return .refuse(
            "group \(group) has no committed offsets and \(named) \(topics.count == 1 ? "holds" : "hold") "
                + "\(records) records, the oldest \(age) old (more than \(Self.age(milliseconds: bound.wholeMilliseconds))): "
                + "set kafka.start_from to earliest (send them), latest (skip them) or an age such as 1h "
                + "(send the newer ones), or correct group_id if it is a typo")
    }

    /// `3d 4h`, `2h 5m`, `12m`, `40s`: the two largest units.
    static func age(milliseconds: Int64) -> String {
        let seconds = max(0, milliseconds / 1_000)
        let (days, hours, minutes) = (seconds / 86_400, seconds % 86_400 / 3_600, seconds % 3_600 / 60)
        if days > 0 { return hours > 0 ? "\(days)d \(hours)h" : "\(days)d" }
        if hours > 0 { return minutes > 0 ? "\(hours)h \(minutes)m" : "\(hours)h" }
        if minutes > 0 { return "\(minutes)m" }
        return "\(seconds)s"
    }
}
