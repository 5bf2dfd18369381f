import Foundation
import SalvoMockAPNs

/// The one-screen summary printed at the end of a run (also `summary.txt`).
public enum LoadTestTextReport {
    public static func render(_ report: LoadTestReport) -> String {
        let snapshot = report.snapshot
        let expected = snapshot.expectations
        let observed = snapshot.observations
        var lines: [String] = []
        lines.append(
            "salvo loadtest — scenario \(report.scenario)\(report.mockScenario.map { " (mock: \($0))" } ?? ""), run \(report.runID)"
        )
        lines.append(
            String(format: "elapsed %.1f s (phases %.1f s), ", report.elapsedSeconds, report.plannedSeconds)
                + (report.completed ? "all expected effects observed" : "stopped at the drain timeout"))
        lines.append("")
        lines.append(
            "jobs         \(expected.jobsProduced) produced (\(expected.duplicateJobs) duplicates, \(expected.badJobs) bad), "
                + "\(observed.produceAcknowledged) acknowledged, \(observed.produceFailures) failed")
        lines.append("notifications \(expected.notifications) (+\(expected.duplicateNotifications) in duplicates)")
        for lane in LoadTestLane.allCases where lane != .broadcast || expected.delivered[lane.rawValue] != nil {
            lines.append(
                "  delivered \(lane.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)) "
                    + "\(observed.delivered[lane.rawValue] ?? 0) / \(expected.delivered[lane.rawValue] ?? 0) expected")
        }
        lines.append("  duplicate deliveries \(observed.duplicateDeliveries), unknown \(observed.unknownDeliveries)")
        let reasons = Set(expected.feedback.keys).union(observed.feedback.keys).sorted()
        lines.append(
            "feedback     "
                + (reasons.isEmpty
                    ? "none expected"
                    : reasons.map { "\($0) \(observed.feedback[$0] ?? 0)/\(expected.feedback[$0] ?? 0)" }.joined(
                        separator: ", "))
                + ", unexpected \(observed.unexpectedFeedback), repeated \(observed.duplicateFeedback)")
        let codes = Set(expected.deadLetters.keys).union(observed.deadLetters.keys).sorted()
        lines.append(
            "dead letters "
                + (codes.isEmpty
                    ? "none expected"
                    : codes.map { "\($0) \(observed.deadLetters[$0] ?? 0)/\(expected.deadLetters[$0] ?? 0)" }.joined(
                        separator: ", ")))
        lines.append("")
        lines.append("latency (ms, scheduled → accepted by APNs)   count      p50    p90    p99  p99.9    max")
        lines.append(row("all", snapshot.latency))
        for lane in LoadTestLane.allCases {
            if let summary = snapshot.lanes[lane.rawValue] { lines.append(row(lane.rawValue, summary)) }
        }
        lines.append(row("schedule lag", snapshot.scheduleLag))
        if let peak = report.timeline.map(\.deliveredPerSecond).max() {
            let total = Double(observed.deliveredTotal)
            lines.append(
                String(
                    format: "throughput   peak %.0f delivered/s, mean %.0f/s", peak,
                    report.elapsedSeconds > 0 ? total / report.elapsedSeconds : 0))
        }
        if let lag = report.consumerLag.map(\.lag).max() { lines.append(String(format: "consumer lag max %.0f", lag)) }
        if let stats = report.mockStats {
            lines.append(
                "mock /stats  scenario \(stats.scenario): accepted \(stats.accepted), rejected \(stats.rejectedTotal), "
                    + "connections \(stats.connectionsTotal), goaways \(stats.goAwaysSent), resets \(stats.connectionResets)"
                    + (stats.broadcastsAccepted > 0 ? ", broadcasts accepted \(stats.broadcastsAccepted)" : ""))
        }
        if !report.control.isEmpty {
            lines.append("")
            lines.append("campaign control")
            lines += report.control.flatMap(\.lines).map { "  " + $0 }
        }
        if !report.objectives.isEmpty {
            lines.append("")
            lines.append("objectives")
            lines += report.objectives.map { "  \($0.met ? "ok  " : "MISS") \($0.summary)" }
        }
        lines.append("")
        lines.append(report.passed ? "RESULT: PASS" : "RESULT: FAIL")
        lines += report.failures.map { "  - \($0)" }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func row(_ label: String, _ summary: LoadTestLatencySummary) -> String {
        let padded = label.padding(toLength: 44, withPad: " ", startingAt: 0)
        return padded
            + [summary.count, summary.p50, summary.p90, summary.p99, summary.p999, summary.max]
            .enumerated().map { index, value in
                let text = String(value)
                let width = index == 0 ? 6 : 7
                return String(repeating: " ", count: max(0, width - text.count)) + text
            }.joined()
    }
}
