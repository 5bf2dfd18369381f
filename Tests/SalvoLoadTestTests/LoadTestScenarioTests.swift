import Foundation
import SalvoLoadTest
import SalvoMockAPNs
import Testing

@Suite("Load scenario files")
struct LoadTestScenarioTests {
    static let full = """
        kind: load
        name: full
        app: shop
        seed: 42
        payload_bytes: 512
        drain_seconds: 12
        topics: {priority: p, campaign: c, feedback: f, dlq: d}
        phases:
          - name: ramp
            duration_seconds: 10
            ramp_from: 0
            rate: 100
          - duration_seconds: 5
            rate: 50
            campaign: {tokens_per_job: 1000, every_seconds: 2}
        mix: {duplicate_jobs: 0.01, bad_jobs: 0.02}
        """

    @Test("every key of a full YAML scenario is read")
    func fullYAML() throws {
        let scenario = try LoadTestScenario.parse(Self.full)
        #expect(scenario.name == "full")
        #expect(scenario.app == "shop")
        #expect(scenario.seed == 42)
        #expect(scenario.payloadBytes == 512)
        #expect(scenario.drainSeconds == 12)
        #expect(scenario.topics.priority == "p" && scenario.topics.campaign == "c")
        #expect(scenario.topics.feedback == "f" && scenario.topics.deadLetters == "d")
        #expect(scenario.phases.count == 2)
        #expect(scenario.phases[0].rampFrom == 0 && scenario.phases[0].rate == 100 && scenario.phases[0].name == "ramp")
        #expect(scenario.phases[1].campaign == LoadTestScenario.Campaign(tokensPerJob: 1000, everySeconds: 2))
        #expect(scenario.mix.duplicateJobs == 0.01 && scenario.mix.badJobs == 0.02)
        #expect(scenario.durationSeconds == 15)
    }

    @Test("JSON is accepted too")
    func json() throws {
        let scenario = try LoadTestScenario.parse(#"{"kind":"load","phases":[{"duration_seconds":1,"rate":5}]}"#)
        #expect(scenario.phases == [LoadTestScenario.Phase(durationSeconds: 1, rate: 5)])
        #expect(scenario.app == "loadtest")
    }

    @Test("an unknown key is refused, naming the key and where it is")
    func unknownKey() {
        let text = "kind: load\nphases:\n  - duration_seconds: 1\n    rate: 5\nmix: {bad_jobz: 0.1}\n"
        let error = #expect(throws: LoadTestError.self) { try LoadTestScenario.parse(text) }
        #expect(error?.code == .invalidScenario)
        #expect(error?.description.contains("bad_jobz") == true)
        #expect(error?.description.contains("mix") == true)
    }

    @Test("a file without kind: load (a mock scenario) is refused")
    func kindRequired() throws {
        let error = #expect(throws: LoadTestError.self) {
            try LoadTestScenario.parse("name: healthy\nlatency: {distribution: none}\n")
        }
        #expect(error?.description.contains("kind must be \"load\"") == true)
    }

    @Test("every out-of-range value is reported at once")
    func violations() {
        let text = """
            kind: load
            payload_bytes: 10
            phases:
              - duration_seconds: 0
                rate: -1
              - duration_seconds: 1
                campaign: {tokens_per_job: 0, every_seconds: 0}
            mix: {duplicate_jobs: 2}
            """
        let error = #expect(throws: LoadTestError.self) { try LoadTestScenario.parse(text) }
        let message = error?.description ?? ""
        for fragment in [
            "phases[0]: duration_seconds", "phases[0]: rate", "phases[1]: campaign.tokens_per_job must be ≥ 1",
            "phases[1]: campaign.every_seconds", "mix.duplicate_jobs", "payload_bytes",
        ] {
            #expect(message.contains(fragment), "\(fragment) in \(message)")
        }
    }

    @Test("invalid-token ratios need a mock scenario that produces those fates")
    func fatesNeedTheMock() {
        let text = "kind: load\nphases: [{duration_seconds: 1, rate: 1}]\nmix: {unregistered: 0.01}\n"
        let error = #expect(throws: LoadTestError.self) { try LoadTestScenario.parse(text) }
        #expect(error?.description.contains("tokens.unregistered") == true)
    }

    @Test("mock_scenario is read relative to the load scenario, and its token fractions used")
    func mockScenarioResolved() throws {
        let directory = try TestScenarios.temporaryDirectory()
        defer { TestScenarios.remove(directory) }
        try "name: dead\ntokens: {unregistered: 0.2, bad_device_token: 0.1}\n"
            .write(toFile: directory + "/dead.yaml", atomically: true, encoding: .utf8)
        try
            "kind: load\nmock_scenario: dead.yaml\nphases: [{duration_seconds: 1, rate: 1}]\nmix: {unregistered: 0.05}\n"
            .write(toFile: directory + "/load.yaml", atomically: true, encoding: .utf8)
        let scenario = try LoadTestScenario.load(path: directory + "/load.yaml")
        #expect(scenario.mockTokens == MockTokenFate(unregistered: 0.2, badDeviceToken: 0.1))
        #expect(scenario.mockScenario == "dead.yaml")

        try "kind: load\nmock_scenario: missing.yaml\nphases: [{duration_seconds: 1, rate: 1}]\n"
            .write(toFile: directory + "/broken.yaml", atomically: true, encoding: .utf8)
        let error = #expect(throws: LoadTestError.self) { try LoadTestScenario.load(path: directory + "/broken.yaml") }
        #expect(error?.description.contains("missing.yaml") == true)
    }

    @Test("every shipped load scenario loads, and every mock scenario is refused as a load scenario")
    func shippedScenarios() throws {
        let directory = TestScenarios.repositoryRoot + "/loadtest/scenarios"
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        let loads: Set = [
            "smoke.yaml", "campaign-1m.yaml", "per-user-steady.yaml", "mixed-with-faults.yaml", "soak-30min.yaml",
            "campaign-cancel.yaml",
        ]
        #expect(loads.isSubset(of: files))
        for file in loads.sorted() {
            let scenario = try LoadTestScenario.load(path: directory + "/" + file)
            #expect(scenario.mockScenario != nil, "\(file) names the mock scenario it expects")
        }
        for file in files where !loads.contains(file) {
            #expect(throws: LoadTestError.self, "\(file)") { try LoadTestScenario.load(path: directory + "/" + file) }
        }
    }

    @Test("scaling multiplies durations, keeps rates")
    func scaling() throws {
        let scaled = try LoadTestScenario.parse(Self.full).scaled(by: 0.5)
        #expect(scaled.phases.map(\.durationSeconds) == [5, 2.5])
        #expect(scaled.phases.map(\.rate) == [100, 50])
        #expect(scaled.drainSeconds == 6)
    }
}
