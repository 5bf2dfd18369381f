#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How long the mock waits before answering a request, drawn per request.
///
/// Log-normal is what real gateway latency looks like (a tight body, a long tail); it is given by
/// its median and 99th percentile, the two numbers people actually know about a service, and the
/// distribution's parameters follow from them: `mu = ln(p50)`, `sigma = ln(p99 / p50) / 2.3263`.
public enum MockLatency: Sendable, Hashable {
    /// Answer at once (in the same read burst as the request). Default.
    case none
    case fixed(milliseconds: Double)
    case uniform(minimumMilliseconds: Double, maximumMilliseconds: Double)
    case logNormal(p50Milliseconds: Double, p99Milliseconds: Double)

    /// The standard normal quantile of 0.99.
    static let z99 = 2.326_347_874

    /// One delay in nanoseconds; 0 means "answer at once".
    func sampleNanoseconds(using generator: inout some RandomNumberGenerator) -> Int64 {
        let milliseconds: Double
        switch self {
        case .none:
            return 0
        case .fixed(let value):
            milliseconds = value
        case .uniform(let low, let high):
            milliseconds = high > low ? Double.random(in: low...high, using: &generator) : low
        case .logNormal(let p50, let p99):
            let sigma = p99 > p50 ? log(p99 / p50) / Self.z99 : 0
            milliseconds = exp(log(p50) + sigma * Self.standardNormal(using: &generator))
        }
        // A log-normal tail can go far past p99 (and past Int64's range): capped at the bound.
        return Nanoseconds.from(milliseconds: min(milliseconds, MockScenario.maximumSeconds * 1_000))
    }

    /// Box–Muller: one standard normal draw from two uniform ones.
    private static func standardNormal(using generator: inout some RandomNumberGenerator) -> Double {
        let u1 = Double.random(in: Double.ulpOfOne..<1, using: &generator)
        let u2 = Double.random(in: 0..<1, using: &generator)
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }

    /// The reason this latency is unusable, or nil.
    func violation() -> String? {
        switch self {
        case .none:
            return nil
        case .fixed(let value):
            return (0...Self.maximumMilliseconds).contains(value)
                ? nil : "latency fixed_ms must be within 0…\(Self.maximumText), got \(value)"
        case .uniform(let low, let high):
            return low >= 0 && high >= low && high <= Self.maximumMilliseconds
                ? nil : "latency needs 0 ≤ min_ms ≤ max_ms ≤ \(Self.maximumText), got \(low) and \(high)"
        case .logNormal(let p50, let p99):
            return p50 > 0 && p99 >= p50 && p99 <= Self.maximumMilliseconds
                ? nil : "latency needs 0 < p50_ms ≤ p99_ms ≤ \(Self.maximumText), got \(p50) and \(p99)"
        }
    }

    /// Longest latency a scenario may ask for: ``MockScenario/maximumSeconds``.
    static let maximumMilliseconds = MockScenario.maximumSeconds * 1_000
    private static var maximumText: String { "86400000 (24 h)" }
}

extension MockLatency: Codable {
    private enum CodingKeys: String, CodingKey, CaseIterable {
        case distribution
        case fixedMilliseconds = "fixed_ms"
        case minimumMilliseconds = "min_ms"
        case maximumMilliseconds = "max_ms"
        case p50Milliseconds = "p50_ms"
        case p99Milliseconds = "p99_ms"
    }

    public init(from decoder: any Decoder) throws {
        try StrictKeys.check(decoder, allowed: CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let distribution = try container.decode(String.self, forKey: .distribution)
        switch distribution {
        case "none":
            self = .none
        case "fixed":
            self = .fixed(milliseconds: try container.decode(Double.self, forKey: .fixedMilliseconds))
        case "uniform":
            self = .uniform(
                minimumMilliseconds: try container.decode(Double.self, forKey: .minimumMilliseconds),
                maximumMilliseconds: try container.decode(Double.self, forKey: .maximumMilliseconds))
        case "lognormal", "log-normal", "log_normal":
            self = .logNormal(
                p50Milliseconds: try container.decode(Double.self, forKey: .p50Milliseconds),
                p99Milliseconds: try container.decode(Double.self, forKey: .p99Milliseconds))
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .distribution, in: container,
                debugDescription: "unknown latency distribution \"\(distribution)\" (none, fixed, uniform, lognormal)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .none:
            try container.encode("none", forKey: .distribution)
        case .fixed(let value):
            try container.encode("fixed", forKey: .distribution)
            try container.encode(value, forKey: .fixedMilliseconds)
        case .uniform(let low, let high):
            try container.encode("uniform", forKey: .distribution)
            try container.encode(low, forKey: .minimumMilliseconds)
            try container.encode(high, forKey: .maximumMilliseconds)
        case .logNormal(let p50, let p99):
            try container.encode("lognormal", forKey: .distribution)
            try container.encode(p50, forKey: .p50Milliseconds)
            try container.encode(p99, forKey: .p99Milliseconds)
        }
    }
}
