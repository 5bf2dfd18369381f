extension MockScenario {
    /// A per-connection event repeated every `everySeconds` and/or every `everyStreams` streams
    /// (whichever comes first); a field left out (nil) does not trigger.
    public struct Periodic: Sendable, Hashable, Codable {
        public var everySeconds: Double?
        public var everyStreams: Int?

        public init(everySeconds: Double? = nil, everyStreams: Int? = nil) {
            self.everySeconds = everySeconds
            self.everyStreams = everyStreams
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case everySeconds = "every_seconds"
            case everyStreams = "every_streams"
        }

        public init(from decoder: any Decoder) throws {
            try StrictKeys.check(decoder, allowed: CodingKeys.self)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.everySeconds = try container.decodeIfPresent(Double.self, forKey: .everySeconds)
            self.everyStreams = try container.decodeIfPresent(Int.self, forKey: .everyStreams)
        }

        func violation(name: String) -> String? {
            if self.everySeconds == nil && self.everyStreams == nil {
                return "\(name) needs every_seconds or every_streams"
            }
            if let seconds = self.everySeconds, !(seconds > 0 && seconds <= MockScenario.maximumSeconds) {
                return "\(name).every_seconds must be within (0, \(MockScenario.maximumSecondsText)], got \(seconds)"
            }
            if let streams = self.everyStreams, streams < 1 { return "\(name).every_streams must be ≥ 1" }
            return nil
        }
    }
}
