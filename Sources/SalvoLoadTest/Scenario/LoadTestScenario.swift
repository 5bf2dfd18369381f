import SalvoMockAPNs

/// What one load test does: the rate schedule, the traffic mix and the faults injected, in a form
/// that can be checked before a single job is produced (`loadtest/README.md` documents the file).
///
/// The scenario is the whole input of the generator: the same scenario yields the same tokens in
/// the same order (``seed``), so two runs of it can be compared report against report.
public struct LoadTestScenario: Sendable, Hashable {
    /// Shown in the report. Default: "load".
    public var name: String = "load"
    /// The mock scenario file this load expects (relative to the load scenario's directory), or
    /// nil for a well-behaved mock. Its `tokens` section is what ``mockTokens`` holds.
    public var mockScenario: String?
    /// The mock's token function parameters: invalid tokens are chosen so that *this* function
    /// judges them as wanted. Default: every token valid.
    public var mockTokens: MockTokenFate = MockTokenFate()
    /// The app every good job names (configured on the worker). Default: "loadtest".
    public var app: String = "loadtest"
    public var topics: Topics = Topics()
    /// Run one after another. At least one.
    public var phases: [Phase] = []
    public var mix: Mix = Mix()
    /// Bytes of each job's APNs payload (padded JSON object), 32…4096. Default: 256.
    public var payloadBytes: Int = 256
    /// Seeds the token generator. Default: 1.
    public var seed: UInt64 = 1
    /// How long to keep measuring after the last job was produced. Default: 30.
    public var drainSeconds: Double = 30
    /// Bounds on latency, throughput and duplicates; a missed one FAILs the run. Default: none.
    public var objectives: Objectives = Objectives()
    /// Campaign-control commands produced during the run, in the order given. Default: none.
    public var control: [Control] = []

    public init() {}

    /// Every problem with the scenario, empty when it can run. The one validation place.
    public func violations() -> [String] {
        var problems: [String] = []
        if name.isEmpty { problems.append("name must not be empty") }
        if app.isEmpty || app.utf8.count > 256 { problems.append("app must be 1–256 bytes") }
        for (label, topic) in [
            ("priority", topics.priority), ("campaign", topics.campaign),
            ("feedback", topics.feedback), ("dlq", topics.deadLetters),
            ("control", topics.control), ("campaigns", topics.campaigns),
        ] where topic.isEmpty {
            problems.append("topics.\(label) must not be empty")
        }
        if phases.isEmpty { problems.append("phases must list at least one phase") }
        for (index, phase) in phases.enumerated() {
            problems += phase.violations(payloadBytes: payloadBytes).map { "phases[\(index)]: \($0)" }
        }
        problems += mix.violations(mockTokens: mockTokens)
        if !(32...4096).contains(payloadBytes) { problems.append("payload_bytes must be 32…4096") }
        if !(drainSeconds >= 0) { problems.append("drain_seconds must be ≥ 0") }
        problems += objectives.violations()
        for (index, action) in control.enumerated() {
            problems += action.violations(campaigns: campaignNames, durationSeconds: durationSeconds).map {
                "control[\(index)]: \($0)"
            }
        }
        return problems
    }

    /// Throws every violation at once.
    public func validate() throws(LoadTestError) {
        let problems = violations()
        guard problems.isEmpty else {
            throw LoadTestError(.invalidScenario, "scenario \(name): " + problems.joined(separator: "; "))
        }
    }

    /// The same scenario with every phase (and the drain) `factor` times as long, rates unchanged:
    /// `--duration-scale 0.1` turns a 30-minute soak into a 3-minute rehearsal.
    public func scaled(by factor: Double) -> LoadTestScenario {
        var scaled = self
        scaled.phases = phases.map { phase in
            var phase = phase
            phase.durationSeconds *= factor
            return phase
        }
        scaled.control = control.map { action in
            var action = action
            if case .seconds(let seconds) = action.at { action.at = .seconds(seconds * factor) }
            return action
        }
        scaled.drainSeconds *= factor
        return scaled
    }

    /// Total planned length of the phases.
    public var durationSeconds: Double { phases.reduce(0) { $0 + $1.durationSeconds } }
}
