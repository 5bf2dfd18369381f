import Foundation
import SalvoAPNs
import Testing

@testable import SalvoMockAPNs

@Suite("MockScenario: files, defaults and validation")
struct MockScenarioTests {
    @Test("a YAML scenario with every key")
    func fullYAML() throws {
        let scenario = try MockScenario.parse(
            """
            name: everything
            latency: {distribution: lognormal, p50_ms: 20, p99_ms: 150}
            tokens: {unregistered: 0.02, bad_device_token: 0.01}
            rate_limit: {requests: 3, per_seconds: 1.5}
            errors: {internal_server_error: 0.001, service_unavailable: 0.002, shutdown: 0.0005}
            shutdown_storm: {every_seconds: 60, duration_seconds: 2}
            goaway: {every_seconds: 30, every_streams: 10000}
            connection_reset: {every_streams: 50000}
            stream_reset_rate: 0.001
            max_concurrent_streams: 500
            drop_streams_after_rejection: true
            seed: 7
            """)
        #expect(scenario.name == "everything")
        #expect(scenario.latency == .logNormal(p50Milliseconds: 20, p99Milliseconds: 150))
        #expect(scenario.tokens == MockTokenFate(unregistered: 0.02, badDeviceToken: 0.01))
        #expect(scenario.rateLimit == MockScenario.RateLimit(requests: 3, perSeconds: 1.5))
        #expect(
            scenario.errors
                == MockScenario.ErrorRates(internalServerError: 0.001, serviceUnavailable: 0.002, shutdown: 0.0005))
        #expect(scenario.shutdownStorm == MockScenario.ShutdownStorm(everySeconds: 60, durationSeconds: 2))
        #expect(scenario.goAway == MockScenario.Periodic(everySeconds: 30, everyStreams: 10_000))
        #expect(scenario.connectionReset == MockScenario.Periodic(everyStreams: 50_000))
        #expect(scenario.streamResetRate == 0.001)
        #expect(scenario.maxConcurrentStreams == 500)
        #expect(scenario.dropStreamsAfterRejection)
        #expect(scenario.seed == 7)
    }

    @Test("JSON works too, and missing keys keep their defaults")
    func jsonDefaults() throws {
        let scenario = try MockScenario.parse(#"{"name": "slow", "latency": {"distribution": "fixed", "fixed_ms": 5}}"#)
        #expect(scenario.latency == .fixed(milliseconds: 5))
        var expected = MockScenario()
        expected.name = "slow"
        expected.latency = .fixed(milliseconds: 5)
        #expect(scenario == expected)
        #expect(try MockScenario.parse("{}") == MockScenario())
    }

    @Test("a misspelt key is refused, naming where it is")
    func unknownKey() {
        #expect {
            try MockScenario.parse("latency: {distribution: lognormal, p50_ms: 1, p99ms: 2}")
        } throws: { error in
            let message = (error as? MockAPNsError)?.message ?? ""
            return (error as? MockAPNsError)?.code == .invalidScenario && message.contains("p99ms")
        }
    }

    @Test("out-of-range values are all reported")
    func violations() {
        var scenario = MockScenario()
        scenario.tokens = MockTokenFate(unregistered: 0.7, badDeviceToken: 0.6)
        scenario.errors.internalServerError = 1.5
        scenario.latency = .logNormal(p50Milliseconds: 10, p99Milliseconds: 5)
        scenario.goAway = MockScenario.Periodic()
        scenario.maxConcurrentStreams = 0
        let problems = scenario.violations()
        #expect(problems.count >= 5)
        #expect(throws: MockAPNsError.self) { try scenario.validate() }
    }

    @Test("every mock example under loadtest/scenarios loads (load scenarios, `kind: load`, are the load generator's)")
    func examples() throws {
        let directory = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("loadtest/scenarios")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".json") }
        var mockScenarios = 0
        for file in files {
            let path = directory.appendingPathComponent(file).path
            let text = try String(contentsOfFile: path, encoding: .utf8)
            if text.firstMatch(of: /(?m)^kind:\s*load\s*$|"kind"\s*:\s*"load"/) != nil { continue }
            let scenario = try MockScenario.load(path: path)
            #expect(!scenario.name.isEmpty)
            mockScenarios += 1
        }
        #expect(mockScenarios >= 4)
    }

    @Test("error rates split one draw in order: Shutdown, 500, 503")
    func errorDraws() {
        let rates = MockScenario.ErrorRates(internalServerError: 0.2, serviceUnavailable: 0.3, shutdown: 0.1)
        #expect(rates.reason(forDraw: 0.05) == .shutdown)
        #expect(rates.reason(forDraw: 0.15) == .internalServerError)
        #expect(rates.reason(forDraw: 0.45) == .serviceUnavailable)
        #expect(rates.reason(forDraw: 0.65) == nil)
    }

    @Test("a Shutdown storm rages at the end of each period, never right after start")
    func storm() {
        let storm = MockScenario.ShutdownStorm(everySeconds: 10, durationSeconds: 2)
        let second: Int64 = 1_000_000_000
        #expect(!storm.isActive(elapsedNanoseconds: 0))
        #expect(!storm.isActive(elapsedNanoseconds: 1 * second))
        #expect(storm.isActive(elapsedNanoseconds: 10 * second))
        #expect(storm.isActive(elapsedNanoseconds: 11 * second))
        #expect(!storm.isActive(elapsedNanoseconds: 12 * second))
        #expect(storm.isActive(elapsedNanoseconds: 21 * second))
    }
}
