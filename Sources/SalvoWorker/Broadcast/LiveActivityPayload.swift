import Foundation
import SalvoAPNs

/// Apple's Live Activity payload rules ("Starting and updating Live Activities with ActivityKit
/// push notifications"), for push-to-start, token updates and broadcasts. What Apple documents as
/// invalid rejects the job (`invalid_payload`); what a device would silently ignore is returned as
/// ``LiveActivityWarnings``.
///
/// Rules, in `aps`: `event` is `start`, `update` or `end`; a broadcast cannot `start`; `start`
/// needs `attributes-type` (a string), `attributes` (an object), `content-state` and `alert`, and
/// takes at most one of `input-push-channel` (a channel id) and `input-push-token: 1`; `update`
/// needs `content-state` (an object wherever it appears); `timestamp`, `stale-date`,
/// `dismissal-date` and `relevance-score` are numbers when present.
///
/// Parsed with JSONDecoder into ``LiveActivityJSON`` (strict about numbers versus booleans):
/// these jobs are few next to alerts, and their payloads (≤ 5 KiB) are read once per job, not per
/// token.
package enum LiveActivityPayload {
    package enum Kind: Sendable {
        /// A device token's update or end, or a push-to-start (`/3/device/…`).
        case device
        /// A channel broadcast (`/4/broadcasts/…`).
        case broadcast
    }

    /// The warnings for a valid payload; throws the rule it breaks.
    package static func check(
        _ payload: some Collection<UInt8>, kind: Kind, priority: APNsPriority
    ) throws(JobRejection)
        -> LiveActivityWarnings
    {
        guard case .object(let object)? = try? JSONDecoder().decode(LiveActivityJSON.self, from: Data(payload)),
            case .object(let aps)? = object["aps"]
        else { throw Self.invalid("a Live Activity payload needs an aps object") }
        guard case .string(let event)? = aps["event"] else {
            throw Self.invalid("aps.event is required (start, update or end)")
        }
        for key in ["timestamp", "stale-date", "dismissal-date", "relevance-score"] where aps[key] != nil {
            guard aps[key]?.number != nil else { throw Self.invalid("aps.\(key) must be a number") }
        }
        if let state = aps["content-state"], !state.isObject {
            throw Self.invalid("aps.content-state must be an object")
        }
        switch event {
        case "start":
            guard kind == .device else {
                throw Self.invalid("a broadcast cannot start a Live Activity (aps.event start)")
            }
            guard case .string? = aps["attributes-type"] else {
                throw Self.invalid("a push-to-start needs aps.attributes-type")
            }
            guard aps["attributes"]?.isObject == true else {
                throw Self.invalid("a push-to-start needs aps.attributes (an object)")
            }
            guard aps["content-state"] != nil else { throw Self.invalid("a push-to-start needs aps.content-state") }
            guard aps["alert"] != nil else { throw Self.invalid("a push-to-start needs aps.alert") }
            if aps["input-push-channel"] != nil && aps["input-push-token"] != nil {
                throw Self.invalid("a push-to-start takes input-push-channel or input-push-token, not both")
            }
            if let channel = aps["input-push-channel"], !(channel.string.map { APNsChannelID($0) != nil } ?? false) {
                throw Self.invalid("aps.input-push-channel must be a channel id (base64)")
            }
            if let token = aps["input-push-token"], token.number != 1 {
                throw Self.invalid("aps.input-push-token must be 1")
            }
        case "update":
            guard aps["content-state"] != nil else { throw Self.invalid("an update needs aps.content-state") }
        case "end":
            break
        default:
            throw Self.invalid("aps.event must be start, update or end, got \"\(event.prefix(40))\"")
        }
        var warnings: LiveActivityWarnings = []
        let timestamp = aps["timestamp"]?.number
        if event != "start", timestamp == nil { warnings.insert(.missingTimestamp) }
        if let stale = aps["stale-date"]?.number, let timestamp, stale <= timestamp {
            warnings.insert(.staleBeforeTimestamp)
        }
        if event != "end", aps["dismissal-date"] != nil { warnings.insert(.dismissalDateIgnored) }
        if event == "update", priority == .immediate { warnings.insert(.budgetedPriority) }
        return warnings
    }

    private static func invalid(_ message: String) -> JobRejection {
        JobRejection(.invalidPayload, message)
    }
}
