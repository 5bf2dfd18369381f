import Yams

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension MockScenario: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case name
        case latency
        case tokens
        case rateLimit = "rate_limit"
        case errors
        case shutdownStorm = "shutdown_storm"
        case goAway = "goaway"
        case connectionReset = "connection_reset"
        case streamResetRate = "stream_reset_rate"
        case maxConcurrentStreams = "max_concurrent_streams"
        case dropStreamsAfterRejection = "drop_streams_after_rejection"
        case seed
    }

    /// Every key is optional; a missing one keeps its default.
    public init(from decoder: any Decoder) throws {
        try StrictKeys.check(decoder, allowed: CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var scenario = MockScenario()
        scenario.name = try container.decodeIfPresent(String.self, forKey: .name) ?? scenario.name
        scenario.latency = try container.decodeIfPresent(MockLatency.self, forKey: .latency) ?? scenario.latency
        scenario.tokens = try container.decodeIfPresent(MockTokenFate.self, forKey: .tokens) ?? scenario.tokens
        scenario.rateLimit = try container.decodeIfPresent(RateLimit.self, forKey: .rateLimit)
        scenario.errors = try container.decodeIfPresent(ErrorRates.self, forKey: .errors) ?? scenario.errors
        scenario.shutdownStorm = try container.decodeIfPresent(ShutdownStorm.self, forKey: .shutdownStorm)
        scenario.goAway = try container.decodeIfPresent(Periodic.self, forKey: .goAway)
        scenario.connectionReset = try container.decodeIfPresent(Periodic.self, forKey: .connectionReset)
        scenario.streamResetRate = try container.decodeIfPresent(Double.self, forKey: .streamResetRate) ?? 0
        scenario.maxConcurrentStreams =
            try container.decodeIfPresent(Int.self, forKey: .maxConcurrentStreams) ?? scenario.maxConcurrentStreams
        scenario.dropStreamsAfterRejection =
            try container.decodeIfPresent(Bool.self, forKey: .dropStreamsAfterRejection) ?? false
        scenario.seed = try container.decodeIfPresent(UInt64.self, forKey: .seed)
        self = scenario
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.name, forKey: .name)
        try container.encode(self.latency, forKey: .latency)
        try container.encode(self.tokens, forKey: .tokens)
        try container.encodeIfPresent(self.rateLimit, forKey: .rateLimit)
        try container.encode(self.errors, forKey: .errors)
        try container.encodeIfPresent(self.shutdownStorm, forKey: .shutdownStorm)
        try container.encodeIfPresent(self.goAway, forKey: .goAway)
        try container.encodeIfPresent(self.connectionReset, forKey: .connectionReset)
        try container.encode(self.streamResetRate, forKey: .streamResetRate)
        try container.encode(self.maxConcurrentStreams, forKey: .maxConcurrentStreams)
        try container.encode(self.dropStreamsAfterRejection, forKey: .dropStreamsAfterRejection)
        try container.encodeIfPresent(self.seed, forKey: .seed)
    }

    /// Parses YAML or JSON (JSON is read by the same YAML parser) and validates the result.
    public static func parse(_ text: String) throws(MockAPNsError) -> MockScenario {
        let scenario: MockScenario
        do {
            scenario = try YAMLDecoder().decode(MockScenario.self, from: text)
        } catch {
            throw MockAPNsError(.invalidScenario, "cannot read scenario: \(Self.describe(error))")
        }
        try scenario.validate()
        return scenario
    }

    /// Loads and validates a scenario file (`.yaml`, `.yml` or `.json`).
    public static func load(path: String) throws(MockAPNsError) -> MockScenario {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw MockAPNsError(.fileUnreadable, "cannot read scenario file \(path)", underlying: "\(error)")
        }
        do {
            return try Self.parse(text)
        } catch {
            throw MockAPNsError(error.code, "\(path): \(error.message)")
        }
    }

    /// Decoding errors name the path to the bad key, which is what someone editing YAML needs.
    private static func describe(_ error: any Error) -> String {
        guard let decodingError = error as? DecodingError else { return "\(error)" }
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map(\.stringValue).joined(separator: ".")
            return keys.isEmpty ? "" : "at \(keys): "
        }
        switch decodingError {
        case .keyNotFound(let key, let context): return "\(path(context))missing key \"\(key.stringValue)\""
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return path(context) + context.debugDescription
        @unknown default: return "\(decodingError)"
        }
    }
}
