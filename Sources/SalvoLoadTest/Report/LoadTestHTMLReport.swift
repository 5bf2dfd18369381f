import Foundation

/// The self-contained HTML page: summary tables and three inline SVG plots (throughput over
/// time, latency percentiles over time, the latency distribution). No script, no stylesheet and
/// no URL of any kind, so it can be attached to a ticket and opened offline.
public enum LoadTestHTMLReport {
    public static func render(_ report: LoadTestReport) -> String {
        let text = LoadTestTextReport.render(report)
        var html = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        html += "<title>salvo loadtest \(escape(report.scenario)) \(escape(report.runID))</title>"
        html +=
            "<style>body{font-family:sans-serif;margin:24px;max-width:900px}pre{background:#f6f6f6;padding:12px;font-size:12px}"
        html += "h2{margin-top:28px}.pass{color:#176617}.fail{color:#a11}</style></head><body>\n"
        html += "<h1>Load test: \(escape(report.scenario))</h1>\n"
        html += "<p class=\"\(report.passed ? "pass" : "fail")\"><strong>\(report.passed ? "PASS" : "FAIL")</strong>"
        html += report.failures.isEmpty ? "" : ": " + report.failures.map(escape).joined(separator: "; ")
        html += "</p>\n" + objectivesTable(report) + controlTable(report)
        html += "<h2>Summary</h2>\n<pre>\(escape(text))</pre>\n"
        html += "<h2>Throughput over time</h2>\n" + throughputChart(report).render() + "\n"
        html +=
            "<p>Notifications per second handed to Kafka (produced) and accepted by the mock (delivered), per \(report.bucketSeconds)-second bucket.</p>\n"
        html += "<h2>Latency over time</h2>\n" + latencyChart(report).render() + "\n"
        html +=
            "<p>p50 and p99 of end-to-end latency (scheduled time → accepted by APNs) of the notifications delivered in each bucket.</p>\n"
        html += "<h2>Latency distribution</h2>\n" + distributionChart(report).render() + "\n"
        html += distributionTable(report)
        if !report.consumerLag.isEmpty {
            let chart = LoadTestSVGChart(
                title: "Worker consumer lag", xLabel: "seconds", yLabel: "records",
                series: [
                    .init(
                        label: "salvo_consumer_lag", color: "#7a3",
                        points: report.consumerLag.map { (Double($0.second), $0.lag) })
                ])
            html += "<h2>Consumer lag</h2>\n" + chart.render() + "\n"
        }
        if !report.missingFeedbackSample.isEmpty {
            html +=
                "<h2>Feedback never seen (sample)</h2>\n<pre>\(escape(report.missingFeedbackSample.joined(separator: "\n")))</pre>\n"
        }
        return html + "</body></html>\n"
    }

    static func throughputChart(_ report: LoadTestReport) -> LoadTestSVGChart {
        LoadTestSVGChart(
            title: "Throughput", xLabel: "seconds since start", yLabel: "notifications/s",
            series: [
                .init(
                    label: "produced", color: "#888",
                    points: report.timeline.map { (Double($0.second), $0.producedPerSecond) }),
                .init(
                    label: "delivered", color: "#1565c0",
                    points: report.timeline.map { (Double($0.second), $0.deliveredPerSecond) }),
            ])
    }

    static func latencyChart(_ report: LoadTestReport) -> LoadTestSVGChart {
        LoadTestSVGChart(
            title: "Latency percentiles", xLabel: "seconds since start", yLabel: "ms",
            series: [
                .init(
                    label: "p50", color: "#1565c0",
                    points: report.timeline.compactMap { point in point.p50.map { (Double(point.second), Double($0)) } }
                ),
                .init(
                    label: "p99", color: "#c62828",
                    points: report.timeline.compactMap { point in point.p99.map { (Double(point.second), Double($0)) } }
                ),
            ])
    }

    static func distributionChart(_ report: LoadTestReport) -> LoadTestSVGChart {
        LoadTestSVGChart(
            title: "Latency distribution", xLabel: "percentile", yLabel: "ms",
            series: [
                .init(
                    label: "all notifications", color: "#1565c0",
                    points: report.distribution.map { ($0.percentile, Double($0.milliseconds)) })
            ],
            logarithmicX: true)
    }

    /// Each objective, its target and what was measured, missed ones marked.
    static func objectivesTable(_ report: LoadTestReport) -> String {
        guard !report.objectives.isEmpty else { return "" }
        var html =
            "<h2>Objectives</h2>\n<table><tr><th>objective</th><th>target</th><th>measured</th><th>result</th></tr>"
        for objective in report.objectives {
            let measured =
                objective.measured.map { "\(LoadTestObjectiveResult.format($0)) \(objective.unit)" }
                ?? "nothing measured"
            html +=
                "<tr><td>\(escape(objective.name))</td>"
                + "<td>\(escape(objective.limit.symbol)) \(LoadTestObjectiveResult.format(objective.target)) \(escape(objective.unit))</td>"
                + "<td>\(escape(measured))</td>"
                + "<td class=\"\(objective.met ? "pass" : "fail")\">\(objective.met ? "met" : "missed")</td></tr>"
        }
        return html + "</table>\n"
    }

    /// Each control action: when it was produced and what the mock and the workers saw after it.
    static func controlTable(_ report: LoadTestReport) -> String {
        guard !report.control.isEmpty else { return "" }
        var html =
            "<h2>Campaign control</h2>\n<table><tr><th>action</th><th>campaign</th><th>at</th><th>produced</th>"
            + "<th>delivered before / after</th><th>after +1 s (objective 0)</th><th>last after the command</th>"
            + "<th>sent + cancelled / total</th></tr>"
        for result in report.control {
            let produced = result.producedAtOffsetMilliseconds.map { LoadTestControlResult.seconds($0) } ?? "never"
            let grace = result.deliveredAfterGrace.map(String.init) ?? "–"
            let last = result.lastDeliveryAfterMilliseconds.map { "\($0) ms" } ?? "none"
            let progress =
                result.progress.map { "\($0.sent) + \($0.cancelled) / \(result.notifications)" } ?? "not read"
            html +=
                "<tr><td>\(result.action.rawValue)</td><td>\(escape(result.campaign)) (\(escape(result.campaignID)))</td>"
                + "<td>\(escape(result.at))</td><td>\(escape(produced))</td><td>\(result.deliveredBefore) / \(result.deliveredAfter)</td>"
                + "<td class=\"\(grace == "0" || grace == "–" ? "pass" : "fail")\">\(grace)</td><td>\(escape(last))</td>"
                + "<td>\(escape(progress))</td></tr>"
        }
        return html + "</table>\n"
    }

    private static func distributionTable(_ report: LoadTestReport) -> String {
        guard !report.distribution.isEmpty else { return "<p>No deliveries were observed.</p>\n" }
        var html = "<table><tr><th>percentile</th><th>ms</th></tr>"
        for point in report.distribution {
            html += "<tr><td>\(point.percentile)</td><td>\(point.milliseconds)</td></tr>"
        }
        return html + "</table>\n"
    }

    /// Escapes text for HTML and SVG content and attribute values.
    static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
