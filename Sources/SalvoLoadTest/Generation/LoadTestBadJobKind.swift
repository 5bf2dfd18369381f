/// The broken jobs the generator injects, taken in turn, each with the reason code the worker's
/// dead-letter record must carry (docs/jobs.md).
public enum LoadTestBadJobKind: String, Sendable, Hashable, CaseIterable {
    case malformedJSON = "malformed_json"
    case unknownApp = "unknown_app"
    case missingField = "missing_field"
    case invalidToken = "invalid_token"
    case invalidPriority = "invalid_priority"

    /// The app name no worker is configured with.
    public static let unknownAppName = "salvo-loadtest-no-such-app"
    /// A well-formed token for bad jobs: they never reach APNs, so they take no token (and no
    /// fate) from the scenario's sequence.
    static let placeholderToken = String(repeating: "ab", count: 32)

    /// The job's JSON text.
    func body(id: String, app: String, payload: String) -> String {
        switch self {
        case .malformedJSON:
            return #"{"id":"\#(id)","app":"\#(app)","token":"\#(Self.placeholderToken)","payload":{"aps":"#
        case .unknownApp:
            return
                #"{"id":"\#(id)","app":"\#(Self.unknownAppName)","token":"\#(Self.placeholderToken)","payload":\#(payload)}"#
        case .missingField:
            return #"{"id":"\#(id)","app":"\#(app)","token":"\#(Self.placeholderToken)"}"#
        case .invalidToken:
            return #"{"id":"\#(id)","app":"\#(app)","token":"not-a-token","payload":\#(payload)}"#
        case .invalidPriority:
            return
                #"{"id":"\#(id)","app":"\#(app)","token":"\#(Self.placeholderToken)","priority":7,"payload":\#(payload)}"#
        }
    }
}
