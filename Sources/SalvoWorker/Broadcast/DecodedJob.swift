/// What a job message holds: notifications for device tokens, or one broadcast to a Live
/// Activity channel (``JobDecoder/decodeAny(_:)``).
package enum DecodedJob: Sendable {
    case push(Job)
    case broadcast(BroadcastJob)

    package var id: String {
        switch self {
        case .push(let job): job.id
        case .broadcast(let job): job.id
        }
    }
}
