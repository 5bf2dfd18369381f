import Foundation

/// Writes a report's three forms into a directory: `summary.txt`, `report.json`, `report.html`.
public enum LoadTestReportWriter {
    public static let files = ["summary.txt", "report.json", "report.html"]

    /// Creates `directory` if needed and returns the paths written.
    @discardableResult
    public static func write(_ report: LoadTestReport, to directory: String) throws(LoadTestError) -> [String] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let json = try encoder.encode(report)
            let contents: [Data] = [
                Data(LoadTestTextReport.render(report).utf8), json, Data(LoadTestHTMLReport.render(report).utf8),
            ]
            var paths: [String] = []
            for (name, data) in zip(files, contents) {
                let path = directory + "/" + name
                try data.write(to: URL(fileURLWithPath: path))
                paths.append(path)
            }
            return paths
        } catch {
            throw LoadTestError(.file, "cannot write the report to \(directory)", underlying: "\(error)")
        }
    }
}
