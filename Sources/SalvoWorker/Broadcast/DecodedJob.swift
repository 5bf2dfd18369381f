/// What a job message holds: notifications for device tokens, or one broadcast to a Live
/// Activity channel (``JobDecoder/decodeAny(_:)``).
public enum DecodedJob: Sendable {
    case push(Job)
    case broadcast(BroadcastJob)

    public var id: String {
        switch self {
        case .push(let job): job.id
        case .broadcast(let job): job.id
        }
    }
}
