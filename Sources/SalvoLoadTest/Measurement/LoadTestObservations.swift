/// What was actually seen: the mock's deliveries, the feedback and dead-letter topics, and the
/// producer's own failures.
public struct LoadTestObservations: Sendable, Hashable, Codable {
    /// Distinct expected notifications the mock accepted, by lane name.
    public var delivered: [String: Int] = [:]
    /// Accepted notifications whose apns-id had been accepted before (sent twice).
    public var duplicateDeliveries = 0
    /// Accepted notifications whose apns-id is not from this run.
    public var unknownDeliveries = 0
    /// When the latest first delivery was recorded, ms after the schedule's start (for the
    /// delivered rate of ``LoadTestScenario/Objectives``); nil before any.
    public var lastDeliveryOffsetMilliseconds: Int64?
    /// Deliveries recorded earlier than their schedule (clock skew between hosts); counted as 0 ms.
    public var negativeLatencies = 0
    /// Feedback events matching an expected (token, reason), first sight only, by reason.
    public var feedback: [String: Int] = [:]
    /// Feedback events for this run's jobs that no expectation explains (wrong token or reason).
    public var unexpectedFeedback = 0
    /// Feedback events repeating an earlier one (same token).
    public var duplicateFeedback = 0
    /// Dead letters of this run's jobs, by `salvo-reason`.
    public var deadLetters: [String: Int] = [:]
    /// Jobs Kafka did not acknowledge.
    public var produceFailures = 0
    /// Jobs Kafka acknowledged.
    public var produceAcknowledged = 0

    public init() {}

    public var deliveredTotal: Int { delivered.values.reduce(0, +) }
    public var feedbackTotal: Int { feedback.values.reduce(0, +) }
    public var deadLettersTotal: Int { deadLetters.values.reduce(0, +) }
}
