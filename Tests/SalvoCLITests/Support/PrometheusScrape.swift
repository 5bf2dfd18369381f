import Foundation

/// A `/metrics` text split into series, for tests that look at labels rather than grep lines.
struct PrometheusScrape {
    struct Series {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    let text: String
    let series: [Series]

    init(_ text: String) {
        self.text = text
        series = text.split(separator: "\n").compactMap(Self.parse)
    }

    /// `# TYPE` families, and those with a `# HELP` line.
    var families: Set<String> { Self.names(in: text, after: "# TYPE ") }
    var familiesWithHelp: Set<String> { Self.names(in: text, after: "# HELP ") }

    /// Series of `name` whose labels include every pair of `matching`.
    func select(_ name: String, _ matching: [String: String] = [:]) -> [Series] {
        series.filter { series in series.name == name && matching.allSatisfy { series.labels[$0.key] == $0.value } }
    }

    func sum(_ name: String, _ matching: [String: String] = [:]) -> Double {
        select(name, matching).reduce(0) { $0 + $1.value }
    }

    private static func names(in text: String, after prefix: String) -> Set<String> {
        Set(
            text.split(separator: "\n").filter { $0.hasPrefix(prefix) }.compactMap {
                $0.dropFirst(prefix.count).split(separator: " ").first.map(String.init)
            })
    }

    /// `name{a="x",b="y"} value`; label values hold no `"` or `,` in Salvo's series.
    private static func parse(_ line: Substring) -> Series? {
        guard !line.hasPrefix("#"), let space = line.lastIndex(of: " "),
            let value = Double(line[line.index(after: space)...])
        else { return nil }
        let head = line[..<space]
        guard let brace = head.firstIndex(of: "{") else { return Series(name: String(head), labels: [:], value: value) }
        var labels: [String: String] = [:]
        for pair in head[head.index(after: brace)..<head.index(before: head.endIndex)].split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            labels[String(parts[0])] = String(parts[1].dropFirst().dropLast())
        }
        return Series(name: String(head[..<brace]), labels: labels, value: value)
    }
}
