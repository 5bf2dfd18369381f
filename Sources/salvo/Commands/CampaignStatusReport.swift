import Foundation
import SalvoWorker

/// How `salvo campaign status` prints a campaign's totals: a block of text, one line per --watch
/// tick, or one JSON object.
struct CampaignStatusReport {
    let campaignID: String

    func text(_ totals: CampaignProgressTotals?, command: CampaignCommand?) -> String {
        var lines = ["campaign \(campaignID): \(state(command))"]
        guard let totals else {
            lines.append("no worker has reported progress for it yet")
            return lines.joined(separator: "\n")
        }
        let counters = totals.counters
        lines.append("finished      \(counters.finished)")
        lines.append("  accepted    \(counters.accepted)")
        let feedback = counters.feedback.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(
            separator: ", ")
        lines.append(
            "  feedback    \(counters.feedback.values.reduce(0, +))\(feedback.isEmpty ? "" : " (\(feedback))")")
        lines.append("  dead-lettered \(counters.deadLettered)")
        lines.append("  cancelled   \(counters.cancelled)")
        lines.append("sent          \(counters.sent)")
        lines.append("retrying      \(counters.retrying)")
        let rate = totals.averageRate.map { String(format: "%.1f/s", $0) } ?? "-"
        let span = Double(totals.lastAt.millisecondsSince1970 - totals.firstAt.millisecondsSince1970) / 1000
        lines.append("rate          \(rate) (average from \(totals.firstAt) over \(String(format: "%.1f", span)) s)")
        lines.append("records       \(totals.records) worker record(s), newest written \(totals.publishedAt)")
        return lines.joined(separator: "\n")
    }

    /// One --watch line: totals and the rate since the previous line.
    func line(
        _ totals: CampaignProgressTotals?, since previous: CampaignProgressTotals?, command: CampaignCommand?
    ) -> String {
        let now = UTCTimestamp.now()
        guard let totals else { return "\(now) \(campaignID) \(state(command)): no progress yet" }
        let counters = totals.counters
        let rate = previous.flatMap { totals.rate(since: $0) }.map { String(format: "%.1f/s", $0) } ?? "-"
        return "\(now) \(campaignID) \(state(command)): finished \(counters.finished) (accepted \(counters.accepted), "
            + "feedback \(counters.feedback.values.reduce(0, +)), dead-lettered \(counters.deadLettered), cancelled \(counters.cancelled)), "
            + "sent \(counters.sent), retrying \(counters.retrying), rate \(rate)"
    }

    func json(_ totals: CampaignProgressTotals?, command: CampaignCommand?) -> String {
        let counters = totals?.counters ?? CampaignCounters()
        var object: [String: Any] = [
            "campaign_id": campaignID,
            "state": command.map { CampaignActionOptions.state($0.action) } ?? "running",
            "finished": counters.finished, "sent": counters.sent, "accepted": counters.accepted,
            "feedback": counters.feedback,
            "dead_lettered": counters.deadLettered, "cancelled": counters.cancelled, "retrying": counters.retrying,
            "records": totals?.records ?? 0,
        ]
        if let rate = totals?.averageRate { object["rate_per_second"] = rate }
        if let totals {
            object["first_at_ms"] = totals.firstAt.millisecondsSince1970
            object["last_at_ms"] = totals.lastAt.millisecondsSince1970
        }
        if let command {
            object["command"] =
                [
                    "action": command.action.rawValue, "by": command.by, "reason": command.reason,
                    "at_ms": command.at.millisecondsSince1970,
                ] as [String: Any]
        }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    private func state(_ command: CampaignCommand?) -> String {
        guard let command else { return "running (no command)" }
        let reason = command.reason.isEmpty ? "" : ": \(command.reason)"
        return "\(CampaignActionOptions.state(command.action)) by \(command.by) at \(command.at)\(reason)"
    }
}
