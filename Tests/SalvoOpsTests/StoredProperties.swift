import Foundation
import SalvoTestSupport

/// The stored properties each type declares, read from source text: a `var` or `let` one level
/// inside a `struct`, `class` or `actor` body that is neither `static` nor computed (a property
/// with observers counts). Enough for the repository's formatted code, which puts one declaration
/// on a line and indents by four spaces; a property in a nested type counts for that type.
struct StoredProperties {
    /// `Outer.Inner`, as written.
    var type: String
    /// Repository-relative path of the file that declares it.
    var path: String
    var names: [String]

    /// Every struct, class and actor under `folder` (e.g. `Sources/SalvoWorker`).
    static func all(under folder: String) throws -> [StoredProperties] {
        try RepositoryFiles.files(under: [folder], extensions: ["swift"]).flatMap { path in
            declarations(in: try RepositoryFiles.text(path), path: path)
        }
    }

    private struct OpenType {
        var indent: Int
        var name: String
        var holdsStorage: Bool
    }

    static func declarations(in text: String, path: String) -> [StoredProperties] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var open: [OpenType] = []
        var found: [String: StoredProperties] = [:]
        var order: [String] = []
        for (number, line) in lines.enumerated() {
            let indent = line.prefix { $0 == " " }.count
            let words = line.split(whereSeparator: \.isWhitespace).filter { !$0.hasPrefix("@") }
            guard let first = words.first, !first.hasPrefix("//"), !first.hasPrefix("#") else { continue }
            // A line at a type's own indentation or less (its closing brace) ends it.
            open.removeAll { $0.indent >= indent }
            if let kind = words.first(where: { typeKinds.contains($0) }), isDeclarationStart(words, kind: kind),
                let name = words.drop(while: { $0 != kind }).dropFirst().first
            {
                let bare = name.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." }
                let qualified = (open.last.map { $0.name + "." } ?? "") + bare
                open.append(
                    OpenType(indent: indent, name: qualified, holdsStorage: storageKinds.contains(kind)))
                continue
            }
            guard let property = storedPropertyName(words, next: number + 1 < lines.count ? lines[number + 1] : "")
            else { continue }
            guard let owner = open.last, owner.holdsStorage, indent == owner.indent + 4 else { continue }
            if found[owner.name] == nil {
                found[owner.name] = StoredProperties(type: owner.name, path: path, names: [])
                order.append(owner.name)
            }
            found[owner.name]?.names.append(property)
        }
        return order.compactMap { found[$0] }
    }

    private static let typeKinds: Set<Substring> = ["struct", "class", "actor", "enum", "extension", "protocol"]
    private static let storageKinds: Set<Substring> = ["struct", "class", "actor"]
    private static let modifiers: Set<Substring> = [
        "public", "package", "internal", "fileprivate", "private", "final", "nonisolated", "indirect",
        "private(set)", "package(set)", "internal(set)", "fileprivate(set)", "public(set)", "nonisolated(unsafe)",
        "unowned", "unowned(unsafe)", "weak", "lazy", "open",
    ]

    /// `[modifiers] kind Name`: a declaration, not `class func` or a use of the word.
    private static func isDeclarationStart(_ words: [Substring], kind: Substring) -> Bool {
        let before = words.prefix { $0 != kind }
        guard before.allSatisfy({ modifiers.contains($0) }) else { return false }
        let after = words.drop(while: { $0 != kind }).dropFirst().first
        return after.map { $0 != "func" && $0 != "var" && $0 != "let" && $0 != "subscript" } ?? false
    }

    /// The name of a stored `var`/`let` declared by this line, else nil.
    private static func storedPropertyName(_ words: [Substring], next: String) -> String? {
        let before = words.prefix { $0 != "var" && $0 != "let" }
        guard before.count < words.count, before.allSatisfy({ modifiers.contains($0) }) else { return nil }
        let rest = words.dropFirst(before.count + 1)
        guard let rawName = rest.first else { return nil }
        let name = String(rawName.prefix { $0.isLetter || $0.isNumber || $0 == "_" })
        guard !name.isEmpty else { return nil }
        let declaration = rest.joined(separator: " ")
        // `var x: T { … }`, a brace before any `=`, is computed, unless the block holds observers.
        if let brace = declaration.firstIndex(of: "{"),
            declaration.firstIndex(of: "=").map({ brace < $0 }) ?? true
        {
            let block = declaration[brace...] + " " + next.trimmingCharacters(in: .whitespaces)
            guard block.contains("didSet") || block.contains("willSet") else { return nil }
        }
        return name
    }
}
