/// The `lane` dimension of the worker's job and latency metrics: the scheduler lane a job came
/// through, or `retry` for records of the retry topic and notifications sent again after a
/// backoff. An enum, not a string, because it travels with every notification.
enum MetricsLane: String, CaseIterable, Sendable {
    case priority
    case campaign
    case retry

    /// Position in `allCases`, for instruments kept in an array.
    var index: Int {
        switch self {
        case .priority: 0
        case .campaign: 1
        case .retry: 2
        }
    }

    init(_ lane: Lane) {
        switch lane {
        case .priority: self = .priority
        case .campaign: self = .campaign
        }
    }
}
