/// What a job message holds: notifications for device tokens, or one broadcast to a Live
/// Activity channel (``JobDecoder/decodeAny(_:)``).
package enum DecodedJob: Sendable {
    case push(Job)
    case broadcast(BroadcastJob)
    /// Per-user work a worker handed back to the per-user topic (``JobDecoder/decodeAny(_:readsRetry:)``).
    case retry(RetryJob)

    package var id: String {
        switch self {
        case .push(let job): job.id
        case .broadcast(let job): job.id
        case .retry(let retry): retry.job.id
        }
    }
}
