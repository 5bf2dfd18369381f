import Foundation
import SalvoTestSupport
import Testing

/// The mechanical rules of docs/architecture.md ("Modules and what may import what"), checked
/// against the `import` lines of every file under `Sources/`: C only in the folder named after its
/// library, and each target importing only the Salvo modules its row allows. The doc's two tables
/// are parsed and compared with the ones here, so neither can change alone.
@Suite("The architecture's import rules")
struct ArchitectureRulesTests {
    /// The Salvo modules each target may import: the doc's table "module | may import". Every
    /// entry is one the code really imports (an unused one fails `tableIsTheCode`).
    static let allowedImports: [String: Set<String>] = [
        "SalvoPrimitives": [],
        "SalvoKafka": ["SalvoPrimitives"],
        "SalvoHTTP2": ["SalvoPrimitives"],
        "SalvoAPNs": ["SalvoHTTP2", "SalvoPrimitives"],
        // SalvoHTTP2: the session's kept response headers, one setting of the pools.
        "SalvoWorker": ["SalvoAPNs", "SalvoKafka", "SalvoHTTP2", "SalvoPrimitives"],
        "SalvoMockAPNs": ["SalvoAPNs", "SalvoHTTP2", "SalvoPrimitives"],
        "SalvoLoadTest": ["SalvoWorker", "SalvoKafka", "SalvoAPNs", "SalvoMockAPNs", "SalvoPrimitives"],
        "SalvoFuzzing": ["SalvoWorker", "SalvoAPNs", "SalvoMockAPNs"],
        "salvo": [
            "SalvoWorker", "SalvoLoadTest", "SalvoMockAPNs", "SalvoAPNs", "SalvoKafka", "SalvoHTTP2", "SalvoPrimitives",
        ],
        "SalvoTestSupport": [],
    ]

    /// Each C module and the one folder whose files may import it: the doc's table
    /// "C module | imported only under".
    static let cModuleFolders: [String: String] = [
        "CRdKafka": "Sources/SalvoKafka/RDKafka/",
        "CNGHTTP2": "Sources/SalvoHTTP2/NGHTTP2/",
    ]

    @Test("a C module is imported only under the folder named after its library")
    func cModulesStayInTheirFolder() throws {
        let sources = try SourceImports.all()
        #expect(sources.count > 100, "found only \(sources.count) Swift files under Sources/")
        for source in sources {
            for module in source.modules {
                guard let folder = Self.cModuleFolders[module] else { continue }
                #expect(
                    source.path.hasPrefix(folder), "\(source.path) imports \(module): only files under \(folder) may")
            }
        }
    }

    @Test("each target imports only the Salvo modules its row allows")
    func salvoImportsAreAllowed() throws {
        let sources = try SourceImports.all()
        let targets = Set(sources.map(\.target))
        #expect(Set(Self.allowedImports.keys) == targets, "the table must have a row for each target, and only those")
        for source in sources {
            let allowed = Self.allowedImports[source.target] ?? []
            for module in source.modules where targets.contains(module) && module != source.target {
                #expect(
                    allowed.contains(module),
                    "\(source.path) imports \(module), which \(source.target) may not (docs/architecture.md)")
            }
        }
    }

    @Test("every allowed import is one the code makes and Package.swift declares")
    func tableIsTheCode() throws {
        let sources = try SourceImports.all()
        let targets = Set(sources.map(\.target))
        var used: [String: Set<String>] = [:]
        for source in sources {
            used[source.target, default: []].formUnion(
                source.modules.filter { targets.contains($0) && $0 != source.target })
        }
        let manifest = try RepositoryFiles.text("Package.swift")
        for (target, allowed) in Self.allowedImports {
            #expect(
                allowed.subtracting(used[target] ?? []).isEmpty,
                "\(target) may import \(allowed.subtracting(used[target] ?? []).sorted()) but does not: drop them")
            let declared = try #require(
                Self.declaredDependencies(of: target, in: manifest), "Package.swift declares no target \(target)")
            #expect(
                allowed.isSubset(of: declared),
                "\(target) may import \(allowed.subtracting(declared).sorted()), undeclared in Package.swift")
        }
    }

    @Test("the tables in docs/architecture.md are this test's")
    func documentedTablesMatch() throws {
        let doc = try RepositoryFiles.text("docs/architecture.md")
        let modules = try #require(
            MarkdownTable.rows(in: doc, header: "| module | may import"), "no \"module | may import\" table")
        var documented: [String: Set<String>] = [:]
        for row in modules {
            let module = try #require(MarkdownTable.codeSpans(row[0]).first, "a row without a module: \(row)")
            #expect(documented[module] == nil, "\(module) has two rows")
            documented[module] = Set(MarkdownTable.codeSpans(row[1]))
        }
        #expect(
            documented == Self.allowedImports, "docs/architecture.md and this test disagree on what may import what")

        let cModules = try #require(
            MarkdownTable.rows(in: doc, header: "| C module | imported only under"),
            "no \"C module | imported only under\" table")
        var folders: [String: String] = [:]
        for row in cModules {
            let module = try #require(MarkdownTable.codeSpans(row[0]).first, "a row without a module: \(row)")
            folders[module] = MarkdownTable.codeSpans(row[1]).first
        }
        #expect(
            folders == Self.cModuleFolders, "docs/architecture.md and this test disagree on where C may be imported")
    }

    @Test("import lines are read whatever their attributes and access level")
    func importLines() {
        #expect(SourceImports.importedModule("import CRdKafka") == "CRdKafka")
        #expect(SourceImports.importedModule("  @preconcurrency internal import NIOCore") == "NIOCore")
        #expect(SourceImports.importedModule("public import struct SalvoPrimitives.SlotTable") == "SalvoPrimitives")
        #expect(SourceImports.importedModule("/// import CRdKafka in a comment") == nil)
        #expect(SourceImports.importedModule("let important = 1") == nil)
    }

    /// The quoted names in the `dependencies:` list of the target called `target` (not a product of
    /// the same name: a target's name is followed by its dependencies).
    static func declaredDependencies(of target: String, in manifest: String) -> Set<String>? {
        var rest = manifest[...]
        while let name = rest.range(of: "name: \"\(target)\",") {
            rest = rest[name.upperBound...]
            let following = rest.drop { $0.isWhitespace }
            guard following.hasPrefix("dependencies: [") else { continue }
            var depth = 0
            var list = ""
            for character in following.dropFirst("dependencies: ".count) {
                if character == "[" { depth += 1 }
                if character == "]" { depth -= 1 }
                list.append(character)
                if depth == 0 { break }
            }
            return Set(list.spans(between: "\""))
        }
        return nil
    }
}
