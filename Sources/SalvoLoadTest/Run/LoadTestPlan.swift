/// Totals of a scenario's schedule, known before the run (for progress and the bucket width).
public struct LoadTestPlan: Sendable, Hashable {
    public var jobs = 0
    public var notifications = 0
    public var seconds: Double = 0

    public init(scenario: LoadTestScenario) {
        for arrival in LoadTestSchedule(phases: scenario.phases) {
            jobs += 1
            notifications += arrival.tokenCount
        }
        seconds = scenario.durationSeconds
    }

    /// A timeline bucket width that keeps plots at no more than ~300 points.
    public var bucketSeconds: Int { max(1, Int((seconds / 300).rounded(.up))) }
}
