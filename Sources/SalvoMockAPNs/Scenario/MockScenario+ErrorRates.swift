import SalvoAPNs

extension MockScenario {
    /// Fractions (0…1, summing to at most 1) of requests answered with a server error instead of
    /// being accepted. A `Shutdown` answer is followed by GOAWAY on its connection, as APNs does.
    public struct ErrorRates: Sendable, Hashable, Codable {
        /// 500 `InternalServerError`. Default: 0.
        public var internalServerError: Double = 0
        /// 503 `ServiceUnavailable`. Default: 0.
        public var serviceUnavailable: Double = 0
        /// 503 `Shutdown`, then GOAWAY. Default: 0.
        public var shutdown: Double = 0

        public init(internalServerError: Double = 0, serviceUnavailable: Double = 0, shutdown: Double = 0) {
            self.internalServerError = internalServerError
            self.serviceUnavailable = serviceUnavailable
            self.shutdown = shutdown
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case internalServerError = "internal_server_error"
            case serviceUnavailable = "service_unavailable"
            case shutdown
        }

        public init(from decoder: any Decoder) throws {
            try StrictKeys.check(decoder, allowed: CodingKeys.self)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.internalServerError = try container.decodeIfPresent(Double.self, forKey: .internalServerError) ?? 0
            self.serviceUnavailable = try container.decodeIfPresent(Double.self, forKey: .serviceUnavailable) ?? 0
            self.shutdown = try container.decodeIfPresent(Double.self, forKey: .shutdown) ?? 0
        }

        /// Whether any rate is set (the random draw can be skipped).
        var isEmpty: Bool { self.internalServerError <= 0 && self.serviceUnavailable <= 0 && self.shutdown <= 0 }

        /// The error a uniform draw in 0..<1 falls on, or nil.
        func reason(forDraw draw: Double) -> APNsReason? {
            var limit = self.shutdown
            if draw < limit { return .shutdown }
            limit += self.internalServerError
            if draw < limit { return .internalServerError }
            limit += self.serviceUnavailable
            if draw < limit { return .serviceUnavailable }
            return nil
        }

        func violations() -> [String] {
            var problems: [String] = []
            for (value, name) in [
                (self.internalServerError, "internal_server_error"), (self.serviceUnavailable, "service_unavailable"),
                (self.shutdown, "shutdown"),
            ] where !(0...1).contains(value) {
                problems.append("errors.\(name) must be within 0…1, got \(value)")
            }
            if self.internalServerError + self.serviceUnavailable + self.shutdown > 1 {
                problems.append("errors must sum to at most 1")
            }
            return problems
        }
    }
}
