import Foundation

/// One objective of the scenario (``LoadTestScenario/Objectives``) held against its measurement,
/// as `report.json` carries it and the text and HTML reports show it.
public struct LoadTestObjectiveResult: Sendable, Hashable, Codable {
    public enum Limit: String, Sendable, Hashable, Codable {
        /// The measurement must not exceed the target.
        case atMost = "max"
        /// The measurement must reach the target.
        case atLeast = "min"

        var symbol: String { self == .atMost ? "≤" : "≥" }
    }

    /// The scenario key, `p99_ms.priority`, `min_delivered_per_second`, `max_duplicate_deliveries`.
    public var name: String
    public var limit: Limit
    public var target: Double
    /// Nil when nothing was measured (no delivery on that lane): the objective is then missed.
    public var measured: Double?
    public var unit: String
    public var met: Bool

    public init(name: String, limit: Limit, target: Double, measured: Double?, unit: String) {
        self.name = name
        self.limit = limit
        self.target = target
        self.measured = measured
        self.unit = unit
        switch (limit, measured) {
        case (_, nil): met = false
        case (.atMost, let value?): met = value <= target
        case (.atLeast, let value?): met = value >= target
        }
    }

    /// `p99_ms.priority ≤ 500 ms: measured 212 ms, met`.
    public var summary: String {
        "\(name) \(limit.symbol) \(Self.format(target)) \(unit): "
            + (measured.map { "measured \(Self.format($0)) \(unit)" } ?? "nothing measured")
            + (met ? ", met" : ", MISSED")
    }

    static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(format: "%.1f", value)
    }
}
