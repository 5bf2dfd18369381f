import SalvoLoadTest
import SalvoMockAPNs

/// The demo's built-in load, as a Swift value rather than a file so `salvo demo` needs nothing
/// but the binary. At `--scale 1`:
///
/// - **campaign**: 200,000 tokens in 20 jobs of 10,000, one every ~0.5 s over 10 s. A job stays
///   under the embedded cluster's 1 MB message limit (10,000 tokens ≈ 670 kB).
/// - **per-user pushes**: 500 jobs/s of one token each, beside the campaign for the same 10 s,
///   so the priority lane's latency shows what a campaign does to it.
/// - **dead tokens**: 1 % `Unregistered` and 0.5 % `BadDeviceToken` of all tokens, chosen with
///   the mock's own token function (``tokenFate``), so every one must come back as feedback.
/// - **a cancelled campaign**: "flash", 20,000 tokens in 10 jobs of 2,000 beside the main one,
///   cancelled (a `control:` action on `salvo.control`) once the mock has recorded 30 % of it:
///   the summary shows what was sent, what the workers cancelled, and how long after the cancel
///   the last notification went out.
/// - **bad jobs**: 5, one of each kind the generator knows (malformed JSON, unknown app, missing
///   payload, invalid token, invalid priority), each to be dead-lettered; placed on per-user
///   arrivals so the campaign keeps its 200,000 tokens.
///
/// `scale` multiplies the token volume (campaign tokens and per-user rate), not the time: the
/// schedule always lasts 10 s, so a scaled-down run still shows both lanes side by side.
enum DemoScenario {
    static let name = "salvo-demo"
    /// The app every job names, configured on the demo's worker.
    static let app = "demo"
    static let campaignTokens = 200_000
    /// Tokens per campaign job at most (the embedded cluster's message limit).
    static let largestJob = 10_000
    /// Campaign jobs at least, so small scales still spread the campaign over the schedule.
    static let campaignJobs = 20
    static let perUserRate = 500.0
    static let scheduleSeconds = 10.0
    static let badJobs = 5
    /// The cancelled campaign: its name, tokens at scale 1, jobs, and when it is cancelled.
    static let cancelledCampaign = "flash"
    static let cancelledTokens = 20_000
    static let cancelledJobs = 10
    static let cancelAt = 0.3
    /// How long the load generator waits for every expected effect after the last job.
    static let drainSeconds = 30.0
    static let tokenFate = MockTokenFate(unregistered: 0.01, badDeviceToken: 0.005)
    /// APNs's answer time in the mock: log-normal, p50 2 ms, p99 10 ms.
    static let latency = MockLatency.logNormal(p50Milliseconds: 2, p99Milliseconds: 10)

    /// The mock's behaviour that the load expects.
    static var mockScenario: MockScenario {
        var scenario = MockScenario()
        scenario.name = "demo (1% Unregistered, 0.5% BadDeviceToken, log-normal p50 2 ms p99 10 ms)"
        scenario.tokens = tokenFate
        scenario.latency = latency
        return scenario
    }

    /// The load at `scale` (> 0) on `topics`.
    static func make(scale: Double, topics: LoadTestScenario.Topics) -> LoadTestScenario {
        let total = max(1, Int((Double(campaignTokens) * scale).rounded()))
        let jobs = min(total, max(campaignJobs, (total + largestJob - 1) / largestJob))
        var scenario = LoadTestScenario()
        scenario.name = name
        scenario.mockScenario = "built in (salvo demo)"
        scenario.mockTokens = tokenFate
        scenario.app = app
        scenario.topics = topics
        scenario.seed = 1
        scenario.drainSeconds = drainSeconds
        // Spacing by jobs − ½ keeps the last campaign job inside the phase whatever rounding does.
        let campaign = LoadTestScenario.Campaign(
            tokensPerJob: total / jobs, everySeconds: scheduleSeconds / (Double(jobs) - 0.5))
        let flashTokens = max(cancelledJobs, Int((Double(cancelledTokens) * scale).rounded()))
        let flash = LoadTestScenario.Campaign(
            tokensPerJob: flashTokens / cancelledJobs, everySeconds: scheduleSeconds / (Double(cancelledJobs) - 0.5),
            name: cancelledCampaign)
        scenario.phases = [
            LoadTestScenario.Phase(
                name: "campaign and per-user", durationSeconds: scheduleSeconds, rate: max(5, perUserRate * scale),
                campaigns: [campaign, flash])
        ]
        scenario.control = [.init(at: .share(cancelAt), action: .cancel, campaign: cancelledCampaign)]
        scenario.objectives.maximumSentAfterControl = 0
        scenario.mix.unregistered = tokenFate.unregistered
        scenario.mix.badDeviceToken = tokenFate.badDeviceToken
        scenario.mix.badJobs = badJobRatio(for: scenario)
        return scenario
    }

    /// The generator breaks job *n* (1-based) when that keeps its count at ⌊n × ratio⌋. This
    /// picks the smallest ratio near ``badJobs`` ÷ jobs whose broken jobs are all per-user ones,
    /// so no campaign job (10,000 tokens) is replaced by a broken one.
    static func badJobRatio(for scenario: LoadTestScenario) -> Double {
        let lanes = LoadTestSchedule(phases: scenario.phases).map(\.lane)
        let jobs = Double(lanes.count)
        var candidate = (Double(badJobs) + 0.5) / jobs
        let step = 0.01 / jobs
        for _ in 0..<40 {
            var broken = 0
            var clean = true
            for (index, lane) in lanes.enumerated() where broken < Int((Double(index + 1) * candidate).rounded(.down)) {
                broken += 1
                if lane == .campaign { clean = false }
            }
            if clean && broken == badJobs { return candidate }
            candidate += step
        }
        return (Double(badJobs) + 0.5) / jobs
    }
}
