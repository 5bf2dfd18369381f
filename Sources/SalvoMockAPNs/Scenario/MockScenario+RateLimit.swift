extension MockScenario {
    /// At most `requests` notifications per device token in any `perSeconds` window (a fixed
    /// window starting at the token's first request); the rest are answered 429
    /// `TooManyRequests`, as APNs does when one device receives too many pushes.
    public struct RateLimit: Sendable, Hashable, Codable {
        public var requests: Int
        public var perSeconds: Double

        public init(requests: Int, perSeconds: Double) {
            self.requests = requests
            self.perSeconds = perSeconds
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case requests
            case perSeconds = "per_seconds"
        }

        public init(from decoder: any Decoder) throws {
            try StrictKeys.check(decoder, allowed: CodingKeys.self)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.requests = try container.decode(Int.self, forKey: .requests)
            self.perSeconds = try container.decode(Double.self, forKey: .perSeconds)
        }

        func violation() -> String? {
            if self.requests < 1 { return "rate_limit.requests must be ≥ 1" }
            if !(self.perSeconds > 0 && self.perSeconds <= MockScenario.maximumSeconds) {
                return
                    "rate_limit.per_seconds must be within (0, \(MockScenario.maximumSecondsText)], got \(self.perSeconds)"
            }
            return nil
        }
    }
}
