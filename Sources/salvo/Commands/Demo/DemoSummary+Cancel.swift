import Foundation
import SalvoLoadTest

/// The demo's cancelled campaign (``DemoScenario/cancelledCampaign``): its own lines and checks.
///
/// The main table compares the rest of the load, so what the worker and the mock counted for
/// the cancelled campaign before the cancel — known from the workers' progress records, and
/// checked against the mock's own deliveries here — is taken out of their columns.
extension DemoSummary {
    var cancel: LoadTestControlResult? { report.control.first { $0.action == .cancel } }

    /// The cancelled campaign's notifications APNs accepted, by the workers' count.
    var cancelledAccepted: Int { Int(cancel?.progress?.accepted ?? 0) }

    /// Its tokens APNs rejected, by reason, by the workers' count.
    var cancelledFeedback: [String: Int] { (cancel?.progress?.feedback ?? [:]).mapValues { Int($0) } }

    var cancelledFeedbackTotal: Int { cancelledFeedback.values.reduce(0, +) }

    var cancelLines: [String] {
        guard let cancel else { return ["  cancel  no cancel was produced"] }
        guard let produced = cancel.producedAtOffsetMilliseconds else {
            return ["  cancel  campaign \(cancel.campaign) was never cancelled: it did not reach \(cancel.at)"]
        }
        var line =
            "  cancel  campaign \(cancel.campaign) (\(cancel.notifications) tokens) cancelled at \(cancel.at), "
            + String(format: "%.1f s into the run: ", Double(produced) / 1000)
        if let progress = cancel.progress {
            line +=
                "sent \(progress.sent), cancelled \(progress.cancelled) (sent + cancelled = \(progress.sent + progress.cancelled))"
        } else {
            line += "progress not read"
        }
        let last =
            cancel.lastDeliveryAfterMilliseconds.map { "last send \($0) ms after the cancel was produced" }
            ?? "nothing sent after the cancel was produced"
        return [line, "          \(last), \(cancel.deliveredAfterGrace ?? 0) from 1 s after it"]
    }

    var cancelProblems: [String] {
        guard let cancel, cancel.producedAtOffsetMilliseconds != nil else {
            return ["the campaign \(DemoScenario.cancelledCampaign) was not cancelled"]
        }
        guard let progress = cancel.progress else {
            return ["the workers' progress of the cancelled campaign was not read"]
        }
        var problems: [String] = []
        if progress.sent + progress.cancelled != Int64(cancel.notifications) {
            problems.append(
                "cancelled campaign: sent \(progress.sent) + cancelled \(progress.cancelled), expected \(cancel.notifications)"
            )
        }
        if progress.accepted != Int64(cancel.deliveredBefore + cancel.deliveredAfter) {
            problems.append(
                "cancelled campaign: the worker counted \(progress.accepted) accepted, the mock \(cancel.deliveredBefore + cancel.deliveredAfter)"
            )
        }
        if let after = cancel.deliveredAfterGrace, after > 0 {
            problems.append("cancelled campaign: \(after) sent from 1 s after the cancel was produced")
        }
        return problems
    }
}
