extension LoadTestScenario {
    /// Service-level objectives: bounds on what the run measures. A run that delivers everything
    /// but misses one of them FAILs (exit 2), so a load test can gate a release on latency and
    /// throughput, not only on correctness. Every bound is optional; none by default.
    public struct Objectives: Sendable, Hashable {
        /// Largest p99 of end-to-end latency (scheduled → accepted by APNs), ms, by `priority`,
        /// `campaign` or `all`. Default: none.
        public var p99Milliseconds: [String: Double] = [:]
        /// Fewest distinct notifications delivered per second, counted from the schedule's start to
        /// the last delivery (at least the phases' length). Default: none.
        public var minimumDeliveredPerSecond: Double?
        /// Most deliveries of an apns-id already accepted (duplicated jobs' included). Default: none.
        public var maximumDuplicateDeliveries: Int?
        /// Most notifications of a cancelled or paused campaign the mock may record from 1 s
        /// after the command (a pause: until its resume), over all ``LoadTestScenario/control``
        /// actions. Default: none.
        public var maximumSentAfterControl: Int?

        public init() {}

        /// The keys of ``p99Milliseconds``: the lanes and `all`.
        public static let latencyKeys = ["all"] + LoadTestLane.allCases.map(\.rawValue)

        public var isEmpty: Bool {
            p99Milliseconds.isEmpty && minimumDeliveredPerSecond == nil && maximumDuplicateDeliveries == nil
                && maximumSentAfterControl == nil
        }

        func violations() -> [String] {
            var problems: [String] = []
            for (key, value) in p99Milliseconds.sorted(by: { $0.key < $1.key }) {
                if !Self.latencyKeys.contains(key) {
                    problems.append(
                        "objectives.p99_ms.\(key): not a lane (\(Self.latencyKeys.joined(separator: ", ")))")
                } else if !(value > 0 && value <= 3_600_000) {
                    problems.append("objectives.p99_ms.\(key) must be within (0, 3600000]")
                }
            }
            if let rate = minimumDeliveredPerSecond, !(rate > 0 && rate.isFinite) {
                problems.append("objectives.min_delivered_per_second must be > 0")
            }
            if let duplicates = maximumDuplicateDeliveries, duplicates < 0 {
                problems.append("objectives.max_duplicate_deliveries must be ≥ 0")
            }
            if let after = maximumSentAfterControl, after < 0 {
                problems.append("objectives.max_sent_after_control must be ≥ 0")
            }
            return problems
        }

        /// Each objective against the measurement, in a fixed order (latency by key, rate, duplicates).
        public func evaluate(
            _ snapshot: LoadTestSnapshot, plannedSeconds: Double, control: [LoadTestControlResult] = []
        ) -> [LoadTestObjectiveResult] {
            var results: [LoadTestObjectiveResult] = []
            for key in Self.latencyKeys {
                guard let bound = p99Milliseconds[key] else { continue }
                let summary = key == "all" ? snapshot.latency : snapshot.lanes[key]
                let measured = summary.flatMap { $0.count > 0 ? Double($0.p99) : nil }
                results.append(
                    LoadTestObjectiveResult(
                        name: "p99_ms.\(key)", limit: .atMost, target: bound, measured: measured, unit: "ms"))
            }
            if let rate = minimumDeliveredPerSecond {
                results.append(
                    LoadTestObjectiveResult(
                        name: "min_delivered_per_second", limit: .atLeast, target: rate,
                        measured: Self.deliveredPerSecond(snapshot.observations, plannedSeconds: plannedSeconds),
                        unit: "notifications/s"))
            }
            if let duplicates = maximumDuplicateDeliveries {
                results.append(
                    LoadTestObjectiveResult(
                        name: "max_duplicate_deliveries", limit: .atMost, target: Double(duplicates),
                        measured: Double(snapshot.observations.duplicateDeliveries), unit: "deliveries"))
            }
            if let after = maximumSentAfterControl {
                // Nothing measured (no cancel or pause produced) misses the objective.
                let windows = control.compactMap(\.deliveredAfterGrace)
                results.append(
                    LoadTestObjectiveResult(
                        name: "max_sent_after_control", limit: .atMost, target: Double(after),
                        measured: windows.isEmpty ? nil : Double(windows.reduce(0, +)), unit: "notifications"))
            }
            return results
        }

        /// Distinct deliveries over the time to the last of them, never shorter than the phases: a
        /// worker that keeps up scores the offered rate, one that falls behind scores less.
        static func deliveredPerSecond(_ observations: LoadTestObservations, plannedSeconds: Double) -> Double? {
            guard observations.deliveredTotal > 0 else { return nil }
            let last = Double(observations.lastDeliveryOffsetMilliseconds ?? 0) / 1000
            let seconds = max(plannedSeconds, last)
            return seconds > 0 ? Double(observations.deliveredTotal) / seconds : nil
        }
    }
}
