import Foundation
import SalvoMockAPNs

extension LoadTestScenario {
    /// A campaign-control command the load produces during the run (`control:` in the file), so a
    /// load test exercises a cancel, pause or resume under load and the report shows whether the
    /// fleet obeyed it (docs/campaigns.md).
    public struct Control: Sendable, Hashable {
        public enum Action: String, Sendable, Hashable, Codable, CaseIterable {
            case cancel, pause, resume
        }

        /// When the command is produced.
        public enum Trigger: Sendable, Hashable {
            /// Seconds after the schedule's start (`at: 12`).
            case seconds(Double)
            /// When the mock has recorded this share (0…1) of the campaign's planned
            /// notifications (`at: 30%`): "cancel at about 30 %" whatever the worker's speed.
            case share(Double)
        }

        public var at: Trigger
        public var action: Action
        /// The ``Campaign/name`` of a campaign of the scenario.
        public var campaign: String

        public init(at: Trigger, action: Action, campaign: String) {
            self.at = at
            self.action = action
            self.campaign = campaign
        }

        /// `at` as written in the file: `30%` or seconds.
        public var atText: String {
            switch at {
            case .seconds(let seconds): return LoadTestObjectiveResult.format(seconds) + " s"
            case .share(let share): return LoadTestObjectiveResult.format(share * 100) + "%"
            }
        }

        /// Reads `at`: a number of seconds or a percentage such as `30%`.
        static func trigger(_ text: String) -> Trigger? {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if trimmed.hasSuffix("%") {
                return Double(trimmed.dropLast()).map { .share($0 / 100) }
            }
            let seconds = trimmed.hasSuffix("s") ? String(trimmed.dropLast()) : trimmed
            return Double(seconds).map { .seconds($0) }
        }

        func violations(campaigns: Set<String>, durationSeconds: Double) -> [String] {
            var problems: [String] = []
            switch at {
            case .seconds(let seconds) where !(seconds >= 0 && seconds <= durationSeconds):
                problems.append("at must be within the phases (0…\(LoadTestObjectiveResult.format(durationSeconds)) s)")
            case .share(let share) where !(share > 0 && share < 1):
                problems.append("at must be a percentage above 0% and below 100%")
            default:
                break
            }
            if !campaigns.contains(campaign) {
                let known = campaigns.sorted().joined(separator: ", ")
                problems.append(
                    "campaign \(campaign) is not the name of a campaign of the phases (\(known.isEmpty ? "none is named" : known))"
                )
            }
            return problems
        }
    }

    /// The names of the scenario's named campaigns.
    public var campaignNames: Set<String> {
        Set(phases.flatMap { $0.campaigns.compactMap(\.name) })
    }
}

extension LoadTestScenario.Control: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case at, action, campaign
    }

    public init(from decoder: any Decoder) throws {
        try StrictKeys.check(decoder, allowed: CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        // YAML gives `at: 12` as a number and `at: 30%` as a string; both are read as text.
        let text =
            try (try? container.decode(Double.self, forKey: .at)).map { String($0) }
            ?? container.decode(String.self, forKey: .at)
        guard let trigger = Self.trigger(text) else {
            throw DecodingError.dataCorruptedError(
                forKey: .at, in: container,
                debugDescription: "at must be seconds (12) or a percentage (30%), got \(text)")
        }
        let name = try container.decode(String.self, forKey: .action)
        guard let action = Action(rawValue: name) else {
            throw DecodingError.dataCorruptedError(
                forKey: .action, in: container,
                debugDescription:
                    "action must be \(Action.allCases.map(\.rawValue).joined(separator: ", ")), got \(name)")
        }
        self.init(at: trigger, action: action, campaign: try container.decode(String.self, forKey: .campaign))
    }
}
