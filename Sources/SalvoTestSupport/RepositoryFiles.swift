import Foundation
import Yams

/// The repository's files (deployment artifacts, docs), found from this file's location
/// (`Sources/SalvoTestSupport/` is two levels below the root).
public enum RepositoryFiles {
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    public static func path(_ relative: String) -> String {
        root.appendingPathComponent(relative).path
    }

    public static func text(_ relative: String) throws -> String {
        try String(contentsOfFile: path(relative), encoding: .utf8)
    }

    /// Every file under `folders` whose name ends in one of `extensions`, as repository-relative
    /// paths, sorted.
    public static func files(under folders: [String], extensions: Set<String>) -> [String] {
        var found: [String] = []
        for folder in folders {
            guard let enumerator = FileManager.default.enumerator(atPath: path(folder)) else { continue }
            for case let relative as String in enumerator
            where extensions.contains((relative as NSString).pathExtension) {
                found.append("\(folder)/\(relative)")
            }
        }
        return found.sorted()
    }

    /// Every YAML document of a (possibly multi-document) file.
    public static func yamlDocuments(_ relative: String) throws -> [Any] {
        // Yams' sequence keeps a parse error aside instead of throwing it.
        var sequence = try Yams.load_all(yaml: text(relative))
        var documents: [Any] = []
        while let document = sequence.next() { documents.append(document) }
        if let error = sequence.error { throw error }
        return documents
    }

    public static func json(_ relative: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path(relative))))
    }

    /// The documents of a YAML file whose `kind` is `kind`.
    public static func manifests(_ relative: String, kind: String) throws -> [[String: Any]] {
        try yamlDocuments(relative).compactMap { $0 as? [String: Any] }.filter { $0["kind"] as? String == kind }
    }
}
