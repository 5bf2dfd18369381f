import SalvoAPNs
import Testing

@testable import SalvoMockAPNs

/// Every duration of a scenario is bounded (24 h) and every conversion to nanoseconds saturates,
/// so neither a scenario file nor one built in code can trap the mock; a provider token's `iat`
/// is compared without arithmetic that could overflow.
@Suite("Mock bounds: scenarios and provider tokens")
struct MockBoundsTests {
    @Test(
        "durations that are infinite, NaN or beyond 24 h are refused, naming the key",
        arguments: [
            ("latency: {distribution: fixed, fixed_ms: 1e300}", "fixed_ms"),
            ("latency: {distribution: fixed, fixed_ms: .inf}", "fixed_ms"),
            ("latency: {distribution: uniform, min_ms: 0, max_ms: .inf}", "max_ms"),
            ("latency: {distribution: lognormal, p50_ms: 1, p99_ms: 1e300}", "p99_ms"),
            ("shutdown_storm: {every_seconds: 1e300, duration_seconds: 1}", "every_seconds"),
            ("shutdown_storm: {every_seconds: .nan, duration_seconds: 1}", "every_seconds"),
            ("goaway: {every_seconds: 1e300}", "goaway.every_seconds"),
            ("connection_reset: {every_seconds: .inf}", "connection_reset.every_seconds"),
            ("rate_limit: {requests: 1, per_seconds: 86401}", "per_seconds"),
            ("stream_reset_rate: .nan", "stream_reset_rate"),
            ("tokens: {unregistered: .nan}", "tokens.unregistered"),
        ])
    func refused(yaml: String, key: String) {
        #expect {
            try MockScenario.parse(yaml)
        } throws: { error in
            guard let error = error as? MockAPNsError else { return false }
            return error.code == .invalidScenario && error.message.contains(key)
        }
    }

    @Test("the bounds themselves are accepted")
    func atTheBounds() throws {
        let scenario = try MockScenario.parse(
            """
            latency: {distribution: fixed, fixed_ms: 86400000}
            shutdown_storm: {every_seconds: 86400, duration_seconds: 86400}
            goaway: {every_seconds: 86400}
            rate_limit: {requests: 1, per_seconds: 86400}
            """)
        #expect(scenario.latency == .fixed(milliseconds: 86_400_000))
    }

    @Test("a name longer than 256 bytes is refused")
    func longName() {
        var scenario = MockScenario()
        scenario.name = String(repeating: "n", count: 257)
        #expect(scenario.violations().contains { $0.hasPrefix("name") })
    }

    @Test("values that skipped validation saturate instead of trapping")
    func unvalidatedValues() {
        var random = MockRandom(seed: 1)
        let extreme = MockLatency.logNormal(p50Milliseconds: 1e-300, p99Milliseconds: 86_400_000)
        for _ in 0..<10_000 {
            #expect((0...86_400_000_000_000).contains(extreme.sampleNanoseconds(using: &random)))
        }
        #expect(MockLatency.fixed(milliseconds: .infinity).sampleNanoseconds(using: &random) == 86_400_000_000_000)
        #expect(MockLatency.fixed(milliseconds: .nan).sampleNanoseconds(using: &random) == 0)
        #expect(!MockScenario.ShutdownStorm(everySeconds: 1e300, durationSeconds: .nan).isActive(elapsedNanoseconds: 1))
        #expect(MockTokenFate(unregistered: .nan).outcome(forBucket: 5) == .valid)
        #expect(MockTokenFate(badDeviceToken: .infinity).outcome(forBucket: 999_999) == .badDeviceToken)
        #expect(Nanoseconds.from(seconds: -.infinity) == 0)
        #expect(Nanoseconds.from(seconds: 1e300) == Nanoseconds.ceiling)
    }

    @Test("a provider token issued at Int64.min or Int64.max is judged, not a trap")
    func extremeIssuedAt() {
        let now: Int64 = 1_700_000_000
        var machine = MockProviderTokenStateMachine()
        let ancient = MockVerifiedProviderToken(keyID: "K", teamID: "T", issuedAt: .min)
        #expect(machine.verified([1], result: .success(ancient), now: now) == .rejected(.expiredProviderToken))
        let future = MockVerifiedProviderToken(keyID: "K", teamID: "T", issuedAt: .max)
        #expect(machine.verified([2], result: .success(future), now: now) == .accepted)
        #expect(machine.check(authorization: [2], now: now) == .accepted)
        #expect(MockProviderTokenStateMachine.isExpired(issuedAt: now - 3_601, now: now))
        #expect(!MockProviderTokenStateMachine.isExpired(issuedAt: now - 3_600, now: now))
    }
}
