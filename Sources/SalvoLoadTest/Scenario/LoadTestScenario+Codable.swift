import Foundation
import SalvoMockAPNs
import Yams

/// The file form. `kind: load` is required so a load scenario and a mock scenario, which share
/// `loadtest/scenarios/`, can never be given to the wrong command.
extension LoadTestScenario: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case kind, name, app, topics, phases, mix, seed, objectives, control
        case mockScenario = "mock_scenario"
        case payloadBytes = "payload_bytes"
        case drainSeconds = "drain_seconds"
    }

    /// The value `kind` must have.
    public static let kind = "load"

    public init(from decoder: any Decoder) throws {
        // `kind` first: a mock scenario given by mistake is named as such, not as a list of unknown keys.
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let kind = try container.decodeIfPresent(String.self, forKey: .kind)
        guard kind == Self.kind else {
            throw DecodingError.dataCorruptedError(
                forKey: .kind, in: container,
                debugDescription:
                    "kind must be \"load\" (got \(kind.map { "\"\($0)\"" } ?? "none")); a file without it is a mock scenario"
            )
        }
        try StrictKeys.check(decoder, allowed: CodingKeys.self)
        var scenario = LoadTestScenario()
        scenario.name = try container.decodeIfPresent(String.self, forKey: .name) ?? scenario.name
        scenario.mockScenario = try container.decodeIfPresent(String.self, forKey: .mockScenario)
        scenario.app = try container.decodeIfPresent(String.self, forKey: .app) ?? scenario.app
        scenario.topics = try container.decodeIfPresent(Topics.self, forKey: .topics) ?? scenario.topics
        scenario.phases = try container.decode([Phase].self, forKey: .phases)
        scenario.mix = try container.decodeIfPresent(Mix.self, forKey: .mix) ?? scenario.mix
        scenario.payloadBytes = try container.decodeIfPresent(Int.self, forKey: .payloadBytes) ?? scenario.payloadBytes
        scenario.seed = try container.decodeIfPresent(UInt64.self, forKey: .seed) ?? scenario.seed
        scenario.drainSeconds =
            try container.decodeIfPresent(Double.self, forKey: .drainSeconds) ?? scenario.drainSeconds
        scenario.objectives = try container.decodeIfPresent(Objectives.self, forKey: .objectives) ?? scenario.objectives
        scenario.control = try container.decodeIfPresent([Control].self, forKey: .control) ?? []
        self = scenario
    }

    /// Parses YAML or JSON text. `mock_scenario` is resolved against `baseDirectory` (nil: the
    /// mock's token fractions are left at zero) and the result is validated.
    public static func parse(_ text: String, baseDirectory: String? = nil) throws(LoadTestError) -> LoadTestScenario {
        var scenario: LoadTestScenario
        do {
            scenario = try YAMLDecoder().decode(LoadTestScenario.self, from: text)
        } catch {
            throw LoadTestError(.invalidScenario, "cannot read load scenario", underlying: Self.describe(error))
        }
        if let mockFile = scenario.mockScenario, let baseDirectory {
            let path = mockFile.hasPrefix("/") ? mockFile : baseDirectory + "/" + mockFile
            do {
                scenario.mockTokens = try MockScenario.load(path: path).tokens
            } catch {
                throw LoadTestError(
                    .invalidScenario, "mock_scenario \(mockFile) cannot be used", underlying: "\(error)")
            }
        }
        try scenario.validate()
        return scenario
    }

    /// Loads a scenario file; `mock_scenario` is read relative to the file's directory.
    public static func load(path: String) throws(LoadTestError) -> LoadTestScenario {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw LoadTestError(.file, "cannot read load scenario file \(path)", underlying: "\(error)")
        }
        let directory = (path as NSString).deletingLastPathComponent
        do {
            return try parse(text, baseDirectory: directory.isEmpty ? "." : directory)
        } catch {
            throw LoadTestError(error.code, "\(path): \(error.message)", underlying: error.underlying)
        }
    }

    /// Decoding errors name the path of keys, which is what someone fixing the file needs.
    static func describe(_ error: any Error) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case DecodingError.dataCorrupted(let context):
            return "\(path(context.codingPath)): \(context.debugDescription)"
        case DecodingError.keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])): missing"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return "\(path(context.codingPath)): \(context.debugDescription)"
        default:
            return "\(error)"
        }
    }
}

extension LoadTestScenario.Topics: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case priority, campaign, feedback, control, campaigns
        case deadLetters = "dlq"
    }

    public init(from decoder: any Decoder) throws {
        try StrictKeys.check(decoder, allowed: CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        priority = try container.decodeIfPresent(String.self, forKey: .priority) ?? priority
        campaign = try container.decodeIfPresent(String.self, forKey: .campaign) ?? campaign
        feedback = try container.decodeIfPresent(String.self, forKey: .feedback) ?? feedback
        deadLetters = try container.decodeIfPresent(String.self, forKey: .deadLetters) ?? deadLetters
        control = try container.decodeIfPresent(String.self, forKey: .control) ?? control
        campaigns = try container.decodeIfPresent(String.self, forKey: .campaigns) ?? campaigns
    }
}

extension LoadTestScenario.Phase: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case name, rate, campaign, campaigns
        case durationSeconds = "duration_seconds"
        case rampFrom = "ramp_from"
    }

    public init(from decoder: any Decoder) throws {
        try StrictKeys.check(decoder, allowed: CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if container.contains(.campaign) && container.contains(.campaigns) {
            throw DecodingError.dataCorruptedError(
                forKey: .campaigns, in: container,
                debugDescription: "give campaign (one) or campaigns (a list), not both")
        }
        self.init(
            name: try container.decodeIfPresent(String.self, forKey: .name),
            durationSeconds: try container.decode(Double.self, forKey: .durationSeconds),
            rate: try container.decodeIfPresent(Double.self, forKey: .rate) ?? 0,
            rampFrom: try container.decodeIfPresent(Double.self, forKey: .rampFrom),
            campaign: try container.decodeIfPresent(LoadTestScenario.Campaign.self, forKey: .campaign),
            campaigns: try container.decodeIfPresent([LoadTestScenario.Campaign].self, forKey: .campaigns) ?? []
        )
    }
}

extension LoadTestScenario.Campaign: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case tokensPerJob = "tokens_per_job"
        case everySeconds = "every_seconds"
        case name
    }

    public init(from decoder: any Decoder) throws {
        try StrictKeys.check(decoder, allowed: CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            tokensPerJob: try container.decode(Int.self, forKey: .tokensPerJob),
            everySeconds: try container.decode(Double.self, forKey: .everySeconds),
            name: try container.decodeIfPresent(String.self, forKey: .name)
        )
    }
}

extension LoadTestScenario.Mix: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case unregistered
        case badDeviceToken = "bad_device_token"
        case duplicateJobs = "duplicate_jobs"
        case badJobs = "bad_jobs"
        case broadcasts
        case broadcastChannels = "broadcast_channels"
    }

    public init(from decoder: any Decoder) throws {
        try StrictKeys.check(decoder, allowed: CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        unregistered = try container.decodeIfPresent(Double.self, forKey: .unregistered) ?? 0
        badDeviceToken = try container.decodeIfPresent(Double.self, forKey: .badDeviceToken) ?? 0
        duplicateJobs = try container.decodeIfPresent(Double.self, forKey: .duplicateJobs) ?? 0
        badJobs = try container.decodeIfPresent(Double.self, forKey: .badJobs) ?? 0
        broadcasts = try container.decodeIfPresent(Double.self, forKey: .broadcasts) ?? 0
        broadcastChannels = try container.decodeIfPresent([String].self, forKey: .broadcastChannels) ?? []
    }
}

extension LoadTestScenario.Objectives: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case p99Milliseconds = "p99_ms"
        case minimumDeliveredPerSecond = "min_delivered_per_second"
        case maximumDuplicateDeliveries = "max_duplicate_deliveries"
        case maximumSentAfterControl = "max_sent_after_control"
    }

    public init(from decoder: any Decoder) throws {
        try StrictKeys.check(decoder, allowed: CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        // Lane names are checked by validation, which reports every problem at once.
        p99Milliseconds = try container.decodeIfPresent([String: Double].self, forKey: .p99Milliseconds) ?? [:]
        minimumDeliveredPerSecond = try container.decodeIfPresent(Double.self, forKey: .minimumDeliveredPerSecond)
        maximumDuplicateDeliveries = try container.decodeIfPresent(Int.self, forKey: .maximumDuplicateDeliveries)
        maximumSentAfterControl = try container.decodeIfPresent(Int.self, forKey: .maximumSentAfterControl)
    }
}
