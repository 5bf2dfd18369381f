import Foundation
import SalvoTestSupport

/// The modules one file under `Sources/` imports, read from its `import` lines (attributes, access
/// levels and `#if canImport` blocks included; a submodule counts as its top module).
struct SourceImports {
    /// Repository-relative, e.g. `Sources/SalvoKafka/RDKafka/RDKafkaClient.swift`.
    var path: String
    /// The target the file belongs to: the folder below `Sources/`.
    var target: String
    var modules: [String]

    /// Every Swift file of every target.
    static func all() throws -> [SourceImports] {
        try RepositoryFiles.files(under: ["Sources"], extensions: ["swift"]).map { path in
            SourceImports(
                path: path,
                target: String(path.split(separator: "/")[1]),
                modules: modules(in: try RepositoryFiles.text(path)))
        }
    }

    /// The module of each line that is an import declaration.
    static func modules(in text: String) -> [String] {
        text.split(separator: "\n").compactMap { importedModule(String($0)) }
    }

    private static let modifiers: Set<Substring> = [
        "public", "package", "internal", "fileprivate", "private", "open",
    ]
    private static let kinds: Set<Substring> = [
        "struct", "class", "enum", "protocol", "typealias", "func", "var", "let",
    ]

    /// `import X`, `@preconcurrency import X`, `public import X.Y`, `import struct X.Y`: X.
    static func importedModule(_ line: String) -> String? {
        var words = line.split(whereSeparator: \.isWhitespace)[...]
        while let first = words.first, first.hasPrefix("@") || modifiers.contains(first) {
            words = words.dropFirst()
        }
        guard words.first == "import" else { return nil }
        words = words.dropFirst()
        if let kind = words.first, kinds.contains(kind) { words = words.dropFirst() }
        guard let path = words.first, let module = path.split(separator: ".").first else { return nil }
        return String(module)
    }
}

/// The rows of a Markdown table: the cells of each line after the header that begins with
/// `header`, up to the first line that is not a table row.
enum MarkdownTable {
    static func rows(in text: String, header: String) -> [[String]]? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard let start = lines.firstIndex(where: { $0.hasPrefix(header) }) else { return nil }
        return lines[(start + 1)...].dropFirst().prefix { $0.hasPrefix("|") }.map { line in
            line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast().map {
                $0.trimmingCharacters(in: .whitespaces)
            }
        }
    }

    /// The `code` spans of a cell, in order.
    static func codeSpans(_ cell: String) -> [String] {
        cell.spans(between: "`")
    }
}

extension StringProtocol {
    /// The pieces between pairs of `mark`: the code spans of Markdown, the quoted names of Swift.
    func spans(between mark: Character) -> [String] {
        split(separator: mark, omittingEmptySubsequences: false).enumerated().compactMap {
            $0.offset % 2 == 1 ? String($0.element) : nil
        }
    }
}
