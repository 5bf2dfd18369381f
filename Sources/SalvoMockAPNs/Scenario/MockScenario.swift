/// How the mock behaves beyond Apple's validation rules: latency, dead tokens, throttling,
/// server errors and connection faults. Loaded from YAML or JSON (``load(path:)``; the format is
/// documented in `docs/mock-apns.md`, examples in `loadtest/scenarios/`) or built in code, and
/// replaceable while the server runs (``MockAPNsServer/setScenario(_:)``).
///
/// The default scenario is a well-behaved APNs: every valid request is accepted at once.
///
/// Order of decisions for a request that passed validation and authentication: the token's fate
/// (``MockTokenFate``), the per-token rate limit (429), a Shutdown storm or the Shutdown rate
/// (503 and GOAWAY), the 500/503 rates, the stream reset rate; then the answer waits for the
/// latency drawn. The token's fate comes first so a load generator can predict it exactly.
public struct MockScenario: Sendable, Hashable {
    /// Shown in logs and `/stats`. Default: "default".
    public var name: String = "default"
    /// Delay before each answer. Default: none.
    public var latency: MockLatency = .none
    /// Tokens answered `Unregistered` or `BadDeviceToken`. Default: none.
    public var tokens: MockTokenFate = MockTokenFate()
    /// Per-device-token throttling answered with 429 `TooManyRequests`. Default: nil (off).
    public var rateLimit: RateLimit?
    /// Random server errors. Default: none.
    public var errors: ErrorRates = ErrorRates()
    /// Periodic windows in which every request is answered 503 `Shutdown`. Default: nil (off).
    public var shutdownStorm: ShutdownStorm?
    /// GOAWAY (NO_ERROR) sent on each connection every N seconds and/or every N streams.
    /// Default: nil (never).
    public var goAway: Periodic?
    /// Each connection is reset (TCP RST, no GOAWAY) every N seconds and/or every N streams.
    /// Default: nil (never).
    public var connectionReset: Periodic?
    /// Fraction of requests answered with RST_STREAM(INTERNAL_ERROR) instead of a response, 0…1.
    /// Default: 0.
    public var streamResetRate: Double = 0
    /// SETTINGS_MAX_CONCURRENT_STREAMS advertised to new connections. Default: 1000 (what APNs
    /// advertises to a token-authenticated connection).
    public var maxConcurrentStreams: Int = 1000
    /// APNs lowers a connection's MAX_CONCURRENT_STREAMS to 1 after a rejected request and
    /// restores it after the next success; true does the same (any non-200 answer counts as a
    /// rejection). Default: false.
    public var dropStreamsAfterRejection: Bool = false
    /// Seed of the per-connection random generators (connection n uses seed + n), so a run can be
    /// repeated; nil draws a random seed. Default: nil.
    public var seed: UInt64?

    public init() {}

    /// Longest duration any part of a scenario may name (latency, periods, windows, storms):
    /// 24 hours. A scenario comes from a file or from anyone reaching the admin listener, and
    /// larger values only served to overflow the conversion to nanoseconds.
    public static let maximumSeconds: Double = 86_400
    static let maximumSecondsText = "86400 (24 h)"
    /// Longest ``name`` in UTF-8 bytes: it appears in logs and in `/stats`.
    public static let maximumNameLength = 256

    /// The reasons this scenario is unusable; empty when it is valid. The one validation place.
    public func violations() -> [String] {
        var problems: [String] = []
        func fraction(_ value: Double, _ name: String) {
            if !(0...1).contains(value) { problems.append("\(name) must be within 0…1, got \(value)") }
        }
        if self.name.utf8.count > Self.maximumNameLength {
            problems.append("name must have at most \(Self.maximumNameLength) bytes, got \(self.name.utf8.count)")
        }
        if let problem = self.latency.violation() { problems.append(problem) }
        fraction(self.tokens.unregistered, "tokens.unregistered")
        fraction(self.tokens.badDeviceToken, "tokens.bad_device_token")
        fraction(self.tokens.unregistered + self.tokens.badDeviceToken, "tokens.unregistered + tokens.bad_device_token")
        if let rateLimit, let problem = rateLimit.violation() { problems.append(problem) }
        problems.append(contentsOf: self.errors.violations())
        if let shutdownStorm, let problem = shutdownStorm.violation() { problems.append(problem) }
        if let goAway, let problem = goAway.violation(name: "goaway") { problems.append(problem) }
        if let connectionReset, let problem = connectionReset.violation(name: "connection_reset") {
            problems.append(problem)
        }
        fraction(self.streamResetRate, "stream_reset_rate")
        if !(1...Int(Int32.max)).contains(self.maxConcurrentStreams) {
            problems.append("max_concurrent_streams must be within 1…2^31-1, got \(self.maxConcurrentStreams)")
        }
        return problems
    }

    /// Throws ``MockAPNsError/Code/invalidScenario`` listing every problem.
    public func validate() throws(MockAPNsError) {
        let problems = self.violations()
        guard problems.isEmpty else {
            throw MockAPNsError(.invalidScenario, "scenario \"\(self.name)\": " + problems.joined(separator: "; "))
        }
    }
}
