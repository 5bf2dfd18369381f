import Foundation
import SalvoLoadTest
import SalvoMockAPNs
import SalvoWorker

/// The demo's verdict and its one-screen summary: what the load expected, what the load
/// generator saw (mock deliveries, feedback and dead-letter topics), what the worker counted and
/// what the mock's `/stats` says, side by side. The three sources are independent, so they must
/// agree exactly: any difference is a problem and the demo fails.
struct DemoSummary {
    struct Setting {
        var kafka: String
        var mockPort: Int
        var scale: Double
        /// The load in one line.
        var load: String
    }

    let report: LoadTestReport
    let worker: WorkerStatistics
    let mock: MockAPNsStats
    let setting: Setting
    /// User + system CPU of the whole process, from before the cluster started to after the drain.
    let cpuSeconds: Double
    let wallSeconds: Double
    let drainSeconds: Double
    var live = ChannelsDemo()

    /// Everything that disagrees; empty when the demo passed.
    var problems: [String] {
        let expected = report.snapshot.expectations
        let seen = report.snapshot.observations
        var problems = report.problems
        if !report.completed {
            problems.append(
                "not every expected effect was seen within \(Int(DemoScenario.drainSeconds)) s of the last job")
        }
        func require(_ name: String, _ value: Int, equals wanted: Int) {
            if value != wanted { problems.append("\(name): \(value), expected \(wanted)") }
        }
        require("delivered (seen by the load generator)", seen.deliveredTotal, equals: expected.deliveredTotal)
        require("duplicate deliveries", seen.duplicateDeliveries, equals: 0)
        require("delivered (worker)", worker.delivered - cancelledAccepted, equals: expected.deliveredTotal)
        require("accepted (mock /stats)", mock.accepted - cancelledAccepted, equals: expected.deliveredTotal)
        require("feedback events (seen on the feedback topic)", seen.feedbackTotal, equals: expected.feedbackTotal)
        require(
            "invalid tokens (worker)", worker.invalidTokens - cancelledFeedbackTotal, equals: expected.feedbackTotal)
        require(
            "feedback events acknowledged (worker)", worker.feedbackAcknowledged - cancelledFeedbackTotal,
            equals: expected.feedbackTotal)
        require("rejected (mock /stats)", mock.rejectedTotal - cancelledFeedbackTotal, equals: expected.feedbackTotal)
        for (reason, count) in expected.feedback.sorted(by: { $0.key < $1.key }) {
            require(
                "rejected \(reason) (mock /stats)", mock.rejected(reason) - (cancelledFeedback[reason] ?? 0),
                equals: count)
        }
        require("dead letters (seen on the DLQ topic)", seen.deadLettersTotal, equals: expected.deadLettersTotal)
        require("dead letters acknowledged (worker)", worker.deadLettersAcknowledged, equals: expected.deadLettersTotal)
        return problems + cancelProblems + live.problems
    }

    /// Notifications the worker sent again (in-process retries, retry-topic hand-offs, replays
    /// after a lost connection). A healthy run has none; they are reported, not judged.
    var retries: Int { worker.retried + worker.handedOff + worker.replayed }

    var text: String {
        let expected = report.snapshot.expectations
        let seen = report.snapshot.observations
        let problems = self.problems
        var lines: [String] = []
        lines.append(
            "salvo demo: " + (problems.isEmpty ? "PASS" : "FAIL") + String(format: " (scale %g", setting.scale)
                + ", run \(report.runID))")
        lines.append("  kafka   \(setting.kafka)")
        lines.append(
            "  apns    mock APNs over TLS on 127.0.0.1:\(setting.mockPort), CA generated for this run, every provider token (JWT) verified"
        )
        lines.append("  worker  one WorkerEngine in this process, \(DemoMock.connections) HTTP/2 connections to APNs")
        lines.append("  load    \(setting.load)")
        lines += live.lines
        lines += cancelLines
        lines.append("")
        lines.append(Self.row("", "expected", "seen", "worker", "mock /stats"))
        lines.append(
            Self.row(
                "delivered", expected.deliveredTotal, seen.deliveredTotal, worker.delivered - cancelledAccepted,
                mock.accepted - cancelledAccepted))
        for lane in LoadTestLane.allCases where expected.delivered[lane.rawValue] != nil {
            lines.append(
                Self.row(
                    "  \(lane.rawValue)", expected.delivered[lane.rawValue] ?? 0, seen.delivered[lane.rawValue] ?? 0,
                    nil, nil))
        }
        lines.append(
            Self.row(
                "feedback events", expected.feedbackTotal, seen.feedbackTotal,
                worker.feedbackAcknowledged - cancelledFeedbackTotal,
                mock.rejectedTotal - cancelledFeedbackTotal))
        for (reason, count) in expected.feedback.sorted(by: { $0.key < $1.key }) {
            lines.append(
                Self.row(
                    "  \(reason)", count, seen.feedback[reason] ?? 0, nil,
                    mock.rejected(reason) - (cancelledFeedback[reason] ?? 0)))
        }
        lines.append(
            Self.row(
                "dead letters (DLQ)", expected.deadLettersTotal, seen.deadLettersTotal, worker.deadLettersAcknowledged,
                nil))
        lines.append(Self.row("retries", 0, nil, retries, nil))
        lines.append("")
        lines.append("  latency, ms (scheduled → APNs answer)    p50      p99      max    count")
        for lane in LoadTestLane.allCases {
            if let summary = report.snapshot.lanes[lane.rawValue] {
                lines.append(Self.latencyRow("    \(lane.rawValue) lane", summary))
            }
        }
        lines.append(Self.latencyRow("    all", report.snapshot.latency))
        let notifications = Double(max(1, worker.delivered + worker.invalidTokens))
        lines.append(
            String(
                format:
                    "  cpu     %.2f CPU-s for the whole demo process (Kafka cluster, mock APNs, worker, load generator): %.2f CPU-s per 100k notifications",
                cpuSeconds, cpuSeconds / notifications * 100_000))
        lines.append(
            String(
                format: "  wall    %.1f s in all (schedule %.0f s, run %.1f s, worker drain %.2f s)",
                wallSeconds, report.plannedSeconds, report.elapsedSeconds, drainSeconds))
        if !problems.isEmpty {
            lines.append("")
            lines.append("problems:")
            lines += problems.map { "  - \($0)" }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func row(_ label: String, _ columns: Int?...) -> String {
        row(label, columns.map { $0.map(String.init) ?? "" })
    }

    private static func row(_ label: String, _ columns: String...) -> String {
        row(label, columns)
    }

    private static func row(_ label: String, _ columns: [String]) -> String {
        "  " + label.padding(toLength: 24, withPad: " ", startingAt: 0)
            + columns.map { String(repeating: " ", count: max(0, 12 - $0.count)) + $0 }.joined()
    }

    private static func latencyRow(_ label: String, _ summary: LoadTestLatencySummary) -> String {
        label.padding(toLength: 40, withPad: " ", startingAt: 0)
            + [summary.p50, summary.p99, summary.max, summary.count].map { value in
                let text = String(value)
                return String(repeating: " ", count: max(0, 9 - text.count)) + text
            }.joined()
    }
}
