/// What a device would ignore in a Live Activity payload Apple otherwise accepts: counted in
/// metrics (`salvo_live_activity_warnings_total{kind}`), never a reason to refuse the job.
package struct LiveActivityWarnings: OptionSet, Sendable, Hashable {
    package let rawValue: UInt8

    package init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// An update or end without `aps.timestamp`: ActivityKit orders updates by it and drops one
    /// it cannot place.
    package static let missingTimestamp = LiveActivityWarnings(rawValue: 1 << 0)
    /// `stale-date` not after `timestamp`: the activity shows as stale at once.
    package static let staleBeforeTimestamp = LiveActivityWarnings(rawValue: 1 << 1)
    /// `dismissal-date` on an update or a start: only an end uses it.
    package static let dismissalDateIgnored = LiveActivityWarnings(rawValue: 1 << 2)
    /// A priority-10 update: it counts against the budget the device enforces, and updates over
    /// the budget are throttled.
    package static let budgetedPriority = LiveActivityWarnings(rawValue: 1 << 3)

    /// Metric label values, one per warning.
    package static let labels: [(LiveActivityWarnings, String)] = [
        (.missingTimestamp, "missing_timestamp"), (.staleBeforeTimestamp, "stale_before_timestamp"),
        (.dismissalDateIgnored, "dismissal_date_ignored"), (.budgetedPriority, "budgeted_priority"),
    ]

    /// The label of each warning set, for a counter per kind.
    package var labelValues: [String] { Self.labels.filter { self.contains($0.0) }.map(\.1) }
}
