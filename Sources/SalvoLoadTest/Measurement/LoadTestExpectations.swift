/// What the worker should make of the jobs produced so far, accumulated as they are generated:
/// the yardstick the observed counts are held against.
public struct LoadTestExpectations: Sendable, Hashable, Codable {
    /// Jobs produced, duplicates included.
    public var jobsProduced = 0
    /// Of those, second productions of an earlier job.
    public var duplicateJobs = 0
    /// Broken jobs (each must become one dead letter).
    public var badJobs = 0
    /// Notifications in good jobs, duplicates not counted.
    public var notifications = 0
    /// Notifications in duplicate jobs (sent again by an at-least-once worker, same apns-ids).
    public var duplicateNotifications = 0
    /// Notifications the mock will accept (valid tokens), by lane name.
    public var delivered: [String: Int] = [:]
    /// Feedback events, by APNs reason (`Unregistered`, `BadDeviceToken`).
    public var feedback: [String: Int] = [:]
    /// Dead letters, by reason code.
    public var deadLetters: [String: Int] = [:]

    public init() {}

    public var deliveredTotal: Int { delivered.values.reduce(0, +) }
    public var feedbackTotal: Int { feedback.values.reduce(0, +) }
    public var deadLettersTotal: Int { deadLetters.values.reduce(0, +) }
}
