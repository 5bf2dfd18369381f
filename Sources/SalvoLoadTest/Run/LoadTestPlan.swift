/// Totals of a scenario's schedule, known before the run (for progress and the bucket width).
public struct LoadTestPlan: Sendable, Hashable {
    public var jobs = 0
    public var notifications = 0
    public var seconds: Double = 0
    /// Planned notifications of each named campaign (a control action's `at: 30%` is a share of these).
    public var campaignNotifications: [String: Int] = [:]

    public init(scenario: LoadTestScenario) {
        for arrival in LoadTestSchedule(phases: scenario.phases) {
            jobs += 1
            notifications += arrival.tokenCount
            if let name = arrival.campaign { campaignNotifications[name, default: 0] += arrival.tokenCount }
        }
        seconds = scenario.durationSeconds
    }

    /// A timeline bucket width that keeps plots at no more than ~300 points.
    public var bucketSeconds: Int { max(1, Int((seconds / 300).rounded(.up))) }
}
