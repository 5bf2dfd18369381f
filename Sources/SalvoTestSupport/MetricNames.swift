import Foundation

/// Metric names as the deployment artifacts, the metrics contract and a running worker state
/// them, so one comparison ("every name an alert or panel uses is documented", "…is exported")
/// is a few lines in a test.
///
/// Names are *families*: a histogram's `_bucket`, `_sum` and `_count` series count as the
/// histogram's name, which is how docs/metrics.md and `# TYPE` lines name it. No Salvo counter or
/// gauge ends in one of those suffixes, so stripping them is safe.
public enum MetricNames {
    public static let prefix = "salvo_"
    private static let seriesSuffixes = ["_bucket", "_sum", "_count"]

    /// Every `salvo_*` identifier in PromQL text outside string literals, as family names.
    public static func referenced(inPromQL expression: String) -> Set<String> {
        var names = Set<String>()
        var current = ""
        func flush() {
            if current.hasPrefix(prefix) { names.insert(family(of: current)) }
            current = ""
        }
        var quote: Character?
        for character in expression {
            // Label values and other string literals are not metric names.
            if let open = quote {
                if character == open { quote = nil }
                continue
            }
            if character == "\"" || character == "'" || character == "`" {
                flush()
                quote = character
            } else if character.isASCII,
                character.isLetter || character.isNumber || character == "_" || character == ":"
            {
                current.append(character)
            } else {
                flush()
            }
        }
        flush()
        return names
    }

    /// Names used by a Prometheus rules file (`groups[].rules[].expr`).
    public static func referenced(inRules rules: [String: Any]) -> Set<String> {
        let groups = rules["groups"] as? [[String: Any]] ?? []
        let expressions = groups.flatMap { ($0["rules"] as? [[String: Any]]) ?? [] }.compactMap {
            $0["expr"] as? String
        }
        return expressions.reduce(into: Set<String>()) { $0.formUnion(referenced(inPromQL: $1)) }
    }

    /// Names used by a Grafana dashboard: every `expr` of every panel target (rows included) and
    /// every templating query.
    public static func referenced(inDashboard dashboard: [String: Any]) -> Set<String> {
        var expressions: [String] = []
        func visit(_ value: Any) {
            if let object = value as? [String: Any] {
                for (key, child) in object {
                    if key == "expr" || key == "query" || key == "definition", let text = child as? String {
                        expressions.append(text)
                    } else {
                        visit(child)
                    }
                }
            } else if let array = value as? [Any] {
                array.forEach(visit)
            }
        }
        visit(dashboard)
        return expressions.reduce(into: Set<String>()) { $0.formUnion(referenced(inPromQL: $1)) }
    }

    /// The names in the first column of docs/metrics.md's tables (`| \`salvo_x\` | …`).
    public static func documented(markdown: String) -> Set<String> {
        var names = Set<String>()
        for line in markdown.split(separator: "\n") where line.hasPrefix("| `\(prefix)") {
            let cell = line.dropFirst(3).prefix { $0 != "`" }
            names.insert(String(cell))
        }
        return names
    }

    /// The families a `/metrics` scrape exports (its `# TYPE name kind` lines).
    public static func exported(prometheusText text: String) -> Set<String> {
        var names = Set<String>()
        for line in text.split(separator: "\n") where line.hasPrefix("# TYPE ") {
            let fields = line.split(separator: " ")
            if fields.count >= 3 { names.insert(String(fields[2])) }
        }
        return names
    }

    public static func family(of series: String) -> String {
        for suffix in seriesSuffixes where series.hasSuffix(suffix) {
            return String(series.dropLast(suffix.count))
        }
        return series
    }
}
