import SalvoAPNs
import Testing

@testable import SalvoWorker

/// A configuration built in code (tests, the demo) is held to the same ranges by
/// `WorkerConfiguration.validate()`, whose refusals name the YAML keys too.
@Suite("Configuration bounds in code")
struct ConfigurationBoundsInCodeTests {
    struct Mistake: CustomTestStringConvertible, Sendable {
        var refusal: String
        var change: @Sendable (inout WorkerConfiguration) -> Void
        var testDescription: String { refusal }
    }

    static let mistakes: [Mistake] = [
        Mistake(refusal: "apps.news.pool.max_streams: 4611686018427387904 is out of range 1…1000") {
            $0.apps["news"]?.pool.maximumStreamsPerConnection = 1 << 62
        },
        Mistake(refusal: "apps.news.pool.connections: 0 is out of range 1…64") {
            $0.apps["news"]?.pool.connectionCount = 0
        },
        Mistake(refusal: "apps.news.pool.request_timeout: 0s is out of range 100ms…1h") {
            $0.apps["news"]?.pool.connection.requestTimeout = .zero
        },
        Mistake(refusal: "apps.news.pool.keepalive_interval: 100ms is out of range 1s…1h") {
            $0.apps["news"]?.pool.connection.keepaliveInterval = .milliseconds(100)
        },
        Mistake(refusal: "apps.news.rate_limit.per_second: 0 is out of range 0.001…10000000") {
            $0.apps["news"]?.rateLimit = RateLimit(perSecond: 0, burst: 1)
        },
        Mistake(refusal: "apps: 1001 apps; the number of apps must be within 1…1000") { configuration in
            let app = configuration.apps["news"]
            for index in 0..<1_000 { configuration.apps["a\(index)"] = app }
        },
        Mistake(refusal: "limits.max_job_bytes: 0 is out of range 1…999983616") { $0.maximumJobBytes = 0 },
        Mistake(refusal: "limits.max_tokens: 9223372036854775807 is out of range 1…10000000") {
            $0.maximumTokens = .max
        },
        Mistake(refusal: "lanes.capacity_per_lane: 9223372036854775807 is out of range 1…10000000") {
            $0.lanes.capacityPerLane = .max
        },
        Mistake(refusal: "lanes.campaign_weight: 0 is out of range 1…1000") { $0.lanes.campaignWeight = 0 },
        Mistake(refusal: "retry.backoff.max: 8760h is out of range 1ms…24h") {
            $0.retry.backoff = RetryBackoff(initialDelay: .seconds(1), maximumDelay: .seconds(8_760 * 3_600))
        },
        Mistake(refusal: "retry.too_many_requests.max: 1s is shorter than retry.too_many_requests.initial 2s") {
            $0.retry.tooManyRequests = RetryBackoff(initialDelay: .seconds(2), maximumDelay: .seconds(1))
        },
        Mistake(refusal: "retry.too_many_requests.multiplier: 100 is out of range 1…10") {
            $0.retry.tooManyRequests.multiplier = 100
        },
        Mistake(refusal: "retry.batch_window: 0s is out of range 1ms…1m") { $0.retry.batchWindow = .zero },
        Mistake(refusal: "retry.max_held: 9223372036854775807 is out of range 0…1000000") {
            $0.retry.maximumHeldNotifications = .max
        },
        Mistake(refusal: "retry.max_held_delay: 48h is out of range 0s…24h") {
            $0.retry.maximumHeldDelay = .seconds(48 * 3_600)
        },
        Mistake(refusal: "outcomes.max_attempts: 0 is out of range 1…1000") { $0.outcomes.maximumAttempts = 0 },
        Mistake(refusal: "outcomes.max_replays: -1 is out of range 0…100") { $0.outcomes.maximumImmediateReplays = -1 },
        Mistake(refusal: "device_rate_limit.burst: 0 is out of range 1…1000000") {
            $0.deviceRateLimit = RateLimit(perSecond: 1, burst: 0)
        },
        Mistake(refusal: "drain_deadline: 0s is out of range 1s…1h") { $0.drainDeadline = .zero },
    ]

    @Test("validate() refuses a value out of its key's range, naming the key", arguments: mistakes)
    func refused(_ mistake: Mistake) throws {
        let fixture = try ConfigurationFixture()
        defer { fixture.remove() }
        var configuration = try ConfigurationBoundsTests.load(fixture.minimalYAML())
        mistake.change(&configuration)
        let error = #expect(throws: SalvoWorkerError.self) { try configuration.validate() }
        #expect(error?.message == mistake.refusal)
    }
}
