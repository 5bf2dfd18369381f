import SalvoMockAPNs

/// Everything a run measured, in the form written to `report.json` and rendered as text and HTML.
public struct LoadTestReport: Sendable, Hashable, Codable {
    /// The percentiles of the distribution plot and table.
    public static let distributionPercentiles: [Double] = [0, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.99, 100]

    public var scenario: String
    public var mockScenario: String?
    public var runID: String
    /// Wall-clock start, milliseconds since 1970.
    public var startMilliseconds: Int64
    /// Planned length of the phases, seconds.
    public var plannedSeconds: Double
    /// From the first job to the end of the drain, seconds.
    public var elapsedSeconds: Double
    /// Whether the run ended because everything expected was observed (not at the drain timeout).
    public var completed: Bool
    public var snapshot: LoadTestSnapshot
    public var timeline: [TimelinePoint]
    public var bucketSeconds: Int
    public var distribution: [DistributionPoint]
    public var consumerLag: [LagPoint]
    /// The mock's `/stats` at the end, when its admin URL was given.
    public var mockStats: MockAPNsStats?
    /// Some tokens whose feedback never came (at most 20).
    public var missingFeedbackSample: [String]
    /// Why the run does not meet its expectations; empty when it does.
    public var problems: [String]
    /// The scenario's objectives against their measurements (empty when it declares none).
    public var objectives: [LoadTestObjectiveResult]
    /// The scenario's campaign-control actions and what came of them (empty when it has none).
    public var control: [LoadTestControlResult] = []

    public init(
        scenario: String, mockScenario: String?, runID: String, startMilliseconds: Int64, plannedSeconds: Double,
        elapsedSeconds: Double, completed: Bool, snapshot: LoadTestSnapshot, timeline: [TimelinePoint],
        bucketSeconds: Int,
        distribution: [DistributionPoint], consumerLag: [LagPoint], mockStats: MockAPNsStats?,
        missingFeedbackSample: [String],
        problems: [String], objectives: [LoadTestObjectiveResult] = [], control: [LoadTestControlResult] = []
    ) {
        self.scenario = scenario
        self.mockScenario = mockScenario
        self.runID = runID
        self.startMilliseconds = startMilliseconds
        self.plannedSeconds = plannedSeconds
        self.elapsedSeconds = elapsedSeconds
        self.completed = completed
        self.snapshot = snapshot
        self.timeline = timeline
        self.bucketSeconds = bucketSeconds
        self.distribution = distribution
        self.consumerLag = consumerLag
        self.mockStats = mockStats
        self.missingFeedbackSample = missingFeedbackSample
        self.problems = problems
        self.objectives = objectives
        self.control = control
    }

    /// Every expectation met and every objective met.
    public var passed: Bool { problems.isEmpty && missedObjectives.isEmpty }

    /// The objectives the run missed.
    public var missedObjectives: [LoadTestObjectiveResult] { objectives.filter { !$0.met } }

    /// Problems and missed objectives, one line each: why the run FAILs.
    public var failures: [String] { problems + missedObjectives.map { "objective \($0.summary)" } }

    /// Compares observations with expectations (and the mock's own count, when known). Feedback
    /// and dead letters are judged only when their topics were read.
    public static func problems(
        of snapshot: LoadTestSnapshot, mockStats: MockAPNsStats?, checksFeedback: Bool, checksDeadLetters: Bool
    ) -> [String] {
        var problems: [String] = []
        let expected = snapshot.expectations
        let observed = snapshot.observations
        if observed.produceFailures > 0 {
            problems.append("\(observed.produceFailures) job(s) were not accepted by Kafka")
        }
        for lane in LoadTestLane.allCases {
            let want = expected.delivered[lane.rawValue] ?? 0
            let got = observed.delivered[lane.rawValue] ?? 0
            if got < want { problems.append("\(lane.rawValue): \(want - got) of \(want) notifications not delivered") }
        }
        if checksFeedback {
            for (reason, want) in expected.feedback.sorted(by: { $0.key < $1.key }) {
                let got = observed.feedback[reason] ?? 0
                if got < want { problems.append("feedback \(reason): \(got) of \(want) events seen") }
            }
            if observed.unexpectedFeedback > 0 {
                problems.append("\(observed.unexpectedFeedback) unexpected feedback event(s)")
            }
        }
        if checksDeadLetters {
            for (reason, want) in expected.deadLetters.sorted(by: { $0.key < $1.key }) {
                let got = observed.deadLetters[reason] ?? 0
                if got != want { problems.append("dead letters \(reason): \(got) seen, \(want) expected") }
            }
            for (reason, got) in observed.deadLetters.sorted(by: { $0.key < $1.key })
            where expected.deadLetters[reason] == nil {
                problems.append("dead letters \(reason): \(got) seen, none expected")
            }
        }
        if let mockStats {
            // The mock counts device pushes and broadcasts apart.
            let broadcasts = observed.delivered[LoadTestLane.broadcast.rawValue] ?? 0
            let pushes = observed.deliveredTotal - broadcasts
            if mockStats.accepted < pushes {
                problems.append("the mock counted \(mockStats.accepted) accepted, fewer than the \(pushes) recorded")
            }
            if mockStats.broadcastsAccepted < broadcasts {
                problems.append(
                    "the mock counted \(mockStats.broadcastsAccepted) broadcasts accepted, fewer than the \(broadcasts) recorded"
                )
            }
        }
        return problems
    }
}
