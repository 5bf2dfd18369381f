extension MockScenario {
    /// Every `everySeconds` (counted from the server's start), a window of `durationSeconds` in
    /// which every request is answered 503 `Shutdown` and its connection gets GOAWAY: what a
    /// client sees while Apple drains a gateway.
    public struct ShutdownStorm: Sendable, Hashable, Codable {
        public var everySeconds: Double
        public var durationSeconds: Double

        public init(everySeconds: Double, durationSeconds: Double) {
            self.everySeconds = everySeconds
            self.durationSeconds = durationSeconds
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case everySeconds = "every_seconds"
            case durationSeconds = "duration_seconds"
        }

        public init(from decoder: any Decoder) throws {
            try StrictKeys.check(decoder, allowed: CodingKeys.self)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.everySeconds = try container.decode(Double.self, forKey: .everySeconds)
            self.durationSeconds = try container.decode(Double.self, forKey: .durationSeconds)
        }

        /// Whether a storm is raging `elapsedNanoseconds` after the server started. Storms start at
        /// the end of each period, so a server is calm right after it starts.
        public func isActive(elapsedNanoseconds: Int64) -> Bool {
            let period = Nanoseconds.from(seconds: self.everySeconds)
            let duration = Nanoseconds.from(seconds: self.durationSeconds)
            guard period > 0, duration > 0, elapsedNanoseconds >= period else { return false }
            return elapsedNanoseconds % period < duration
        }

        func violation() -> String? {
            if !(self.everySeconds > 0 && self.everySeconds <= MockScenario.maximumSeconds) {
                return
                    "shutdown_storm.every_seconds must be within (0, \(MockScenario.maximumSecondsText)], got \(self.everySeconds)"
            }
            if !(self.durationSeconds > 0 && self.durationSeconds <= self.everySeconds) {
                return "shutdown_storm.duration_seconds must be within (0, every_seconds]"
            }
            return nil
        }
    }
}
