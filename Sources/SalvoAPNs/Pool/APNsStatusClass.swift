/// The `status_class` dimension of `salvo_apns_request_duration_seconds`: a handful of values,
/// so latency per pool stays a few series whatever APNs answers.
enum APNsStatusClass: String, CaseIterable, Sendable {
    case success = "2xx"
    case clientError = "4xx"
    case serverError = "5xx"
    /// A status APNs does not use (1xx, 3xx, out of range).
    case other
    /// No answer: timed out, connection lost.
    case none

    init(status: Int) {
        switch status {
        case 200..<300: self = .success
        case 400..<500: self = .clientError
        case 500..<600: self = .serverError
        default: self = .other
        }
    }

    /// Position in `allCases`, for the timers kept in an array.
    var index: Int {
        switch self {
        case .success: 0
        case .clientError: 1
        case .serverError: 2
        case .other: 3
        case .none: 4
        }
    }
}
