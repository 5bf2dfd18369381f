import SalvoKafka

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `kafka.start_from`: `earliest`, `latest`, an age (`24h`: records younger than that) or an
/// RFC 3339 instant (`2026-03-01T00:00:00Z`: records from then on).
enum ConfigurationStartFrom {
    static let key = "kafka.start_from"
    /// Ages beyond four weeks exceed any retention Salvo's topics are created with.
    static let ages: ClosedRange<Duration> = .seconds(1)...(.seconds(28 * 86_400))

    static func parse(_ text: String) throws(ConfigurationProblem) -> KafkaStartPosition {
        let trimmed = String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
        switch trimmed.lowercased() {
        case "earliest": return .earliest
        case "latest": return .latest
        default: break
        }
        if let age = ConfigurationDuration.parse(trimmed) {
            guard ages.contains(age) else { throw ConfigurationProblem(key, ages.outOfRange(trimmed)) }
            return .newerThan(age)
        }
        if let instant = try? Date(trimmed, strategy: .iso8601) {
            return .since(millisecondsSince1970: Int64((instant.timeIntervalSince1970 * 1_000).rounded()))
        }
        throw ConfigurationProblem(
            key,
            "\"\(text)\" is not a start position: write earliest, latest, an age such as 1h or 24h, "
                + "or an RFC 3339 time such as 2026-03-01T00:00:00Z")
    }
}
