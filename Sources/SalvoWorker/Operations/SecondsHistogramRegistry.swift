import SalvoPrimitives
import Synchronization

/// The worker's duration histograms (``SecondsHistogram``) by family, and their Prometheus text,
/// which ``WorkerMetricsBootstrap`` appends to swift-prometheus's registry's.
///
/// Families follow swift-prometheus's rules: one `# HELP` and `# TYPE` line per family, a family
/// keeps the buckets and help text it was created with, and asking again for the same labels
/// returns the same histogram.
package final class SecondsHistogramRegistry: Sendable {
    private struct Family {
        var help: String
        var bounds: [Int64]
        /// By rendered labels.
        var series: [String: SecondsHistogram] = [:]
    }

    private let families = Mutex<[String: Family]>([:])

    package init() {}

    func histogram(name: String, help: String, labels: [(String, String)], buckets: [Duration]) -> SecondsHistogram {
        let rendered = labels.map { "\($0)=\"\(Self.escaped($1, quotes: true))\"" }.joined(separator: ",")
        return self.families.withLock { families in
            if let existing = families[name]?.series[rendered] { return existing }
            var family =
                families[name] ?? Family(help: help, bounds: buckets.sorted().map(\.nanoseconds))
            let histogram = SecondsHistogram(renderedLabels: rendered, bounds: family.bounds)
            family.series[rendered] = histogram
            families[name] = family
            return histogram
        }
    }

    /// Drops `histogram`'s series (a destroyed swift-metrics timer), and its family once empty.
    func remove(_ histogram: SecondsHistogram) {
        self.families.withLock { families in
            for (name, family) in families where family.series[histogram.renderedLabels] === histogram {
                families[name]!.series[histogram.renderedLabels] = nil
                if families[name]!.series.isEmpty { families[name] = nil }
            }
        }
    }

    /// Appends every family's exposition, families and series in name order.
    func emit(into buffer: inout [UInt8]) {
        let families = self.families.withLock { $0 }
        var text = ""
        for name in families.keys.sorted() {
            let family = families[name]!
            if !family.help.isEmpty {
                text += "# HELP \(name) \(Self.escaped(family.help, quotes: false))\n"
            }
            text += "# TYPE \(name) histogram\n"
            let bounds = family.bounds.map { "\(Double($0) / 1e9)" } + ["+Inf"]
            for labels in family.series.keys.sorted() {
                let (cumulative, sum) = family.series[labels]!.snapshot
                let prefix = labels.isEmpty ? "" : labels + ","
                for (bound, count) in zip(bounds, cumulative) {
                    text += "\(name)_bucket{\(prefix)le=\"\(bound)\"} \(count)\n"
                }
                let selector = labels.isEmpty ? "" : "{\(labels)}"
                text += "\(name)_sum\(selector) \(sum)\n"
                text += "\(name)_count\(selector) \(cumulative.last!)\n"
            }
        }
        buffer.append(contentsOf: text.utf8)
    }

    /// Prometheus's escapes: backslash and line feed in help text, and double quotes too in
    /// label values.
    private static func escaped(_ value: String, quotes: Bool) -> String {
        var escaped = ""
        for character in value {
            switch character {
            case "\\": escaped += #"\\"#
            case "\n": escaped += #"\n"#
            case "\"" where quotes: escaped += #"\""#
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
