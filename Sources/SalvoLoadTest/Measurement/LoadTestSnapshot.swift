/// The counts and latency summaries at one moment, for live progress and the report.
public struct LoadTestSnapshot: Sendable, Hashable, Codable {
    public var expectations: LoadTestExpectations
    public var observations: LoadTestObservations
    /// End-to-end latency over both lanes.
    public var latency: LoadTestLatencySummary
    /// End-to-end latency by lane name.
    public var lanes: [String: LoadTestLatencySummary]
    /// How late jobs were handed to the producer relative to their schedule.
    public var scheduleLag: LoadTestLatencySummary

    /// Whether everything expected has been observed: every valid notification delivered and,
    /// where those topics are read, every feedback event and every dead letter seen.
    public func isComplete(checkingFeedback: Bool, checkingDeadLetters: Bool) -> Bool {
        observations.deliveredTotal >= expectations.deliveredTotal
            && (!checkingFeedback || observations.feedbackTotal >= expectations.feedbackTotal)
            && (!checkingDeadLetters || observations.deadLettersTotal >= expectations.deadLettersTotal)
    }
}
