import Foundation
import SalvoTestSupport
import Testing

/// The worker's decision-makers stay small (docs/architecture.md, "The worker core"): every type in
/// SalvoWorker holds at most ``budget`` stored properties, so a new capability becomes a state
/// machine of its own instead of more fields on the core. Plain records, whose fields are data
/// rather than state that decides anything, are exempt by name, each with its reason.
@Suite("Stored-property budget of the worker's types")
struct StoredPropertyBudgetTests {
    static let budget = 15

    /// Records: counters, metric handles, configuration values, decoded job fields.
    static let records: [String: String] = [
        "WorkerStatistics": "a snapshot of counters",
        "WorkerMetrics": "metric handles",
        "WorkerConfiguration": "configuration values",
        "JobFields": "the decoded fields of one job",
    ]

    /// Properties of a decision-maker that hold such records, by type: not counted.
    static let recordProperties: [String: Set<String>] = [
        // The configuration, the outcome classifier (an immutable table compiled from
        // `outcomes:`), the metric handles and the statistics counters.
        "WorkerCore": ["configuration", "classifier", "metrics", "statistics"]
    ]

    @Test("every type in SalvoWorker holds at most 15 stored properties, plain records aside")
    func decisionMakersStaySmall() throws {
        let types = try StoredProperties.all(under: "Sources/SalvoWorker")
        #expect(types.count > 50, "found only \(types.count) types with stored properties")
        for type in types where Self.records[type.type] == nil {
            let exempt = Self.recordProperties[type.type] ?? []
            let counted = type.names.filter { !exempt.contains($0) }
            #expect(
                counted.count <= Self.budget,
                "\(type.type) (\(type.path)) holds \(counted.count) stored properties: \(counted.joined(separator: ", "))"
            )
        }
    }

    @Test("each exempt record exists and is larger than the budget")
    func exemptionsAreNeeded() throws {
        let types = Dictionary(
            try StoredProperties.all(under: "Sources/SalvoWorker").map { ($0.type, $0) }, uniquingKeysWith: { $1 })
        for name in Self.records.keys {
            let type = try #require(types[name], "\(name) is exempt but not found under Sources/SalvoWorker")
            #expect(type.names.count > Self.budget, "\(name) fits the budget: drop its exemption")
        }
    }

    @Test("the parser counts stored properties, not computed ones, statics or nested types' fields")
    func parserCountsStoredProperties() {
        let source = """
            final class Core<C: Clock> {
                struct Nested {
                    var inner = 0
                }
                let clock: C
                private(set) var state = 0 {
                    didSet { changed = true }
                }
                var changed = false
                static let shared = 1
                var computed: Int { state + 1 }
                func work() {
                    let local = 1
                    _ = local
                }
            }
            func free() {
                let outside = 2
            }
            """
        let found = StoredProperties.declarations(in: source, path: "x.swift")
        #expect(found.map(\.type) == ["Core.Nested", "Core"])
        #expect(found.last?.names == ["clock", "state", "changed"])
    }
}
