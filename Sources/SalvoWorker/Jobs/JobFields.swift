import NIOCore
import SalvoAPNs

/// The members of one job as read from the message, each checked on its own; how they combine
/// (required fields, conflicts, the push type's rules) is decided afterwards by ``JobDecoder``.
/// A member given as `null` counts as absent.
struct JobFields {
    var id: String?
    var app: String?
    /// Present when the job had `tokens`.
    var tokens: JobTokenList?
    /// Present when the job had `token`: its range, or why it is not a token.
    var singleToken: Result<Range<Int>, JobRejection>?
    var tokenRejections: [TokenRejection] = []
    /// The exact bytes of the `payload` object.
    var payload: ByteBuffer?
    /// The text of `payload_raw`, unescaped (not yet validated as JSON).
    var payloadRaw: ByteBuffer?
    var pushType: APNsPushType?
    var priority: APNsPriority?
    var expiration: Int64?
    var collapseID: String?
    var topic: String?
    var environment: APNsEnvironment.Kind?
    var campaignID: String?
    /// Present when the job is a broadcast (`channel_id`), not yet checked as a channel id.
    var channelID: String?
    var badges: [DeviceToken: Int] = [:]
    var retry: RetryFields?
    /// Members met so far, to reject duplicates.
    var seen = JobField.SeenSet()
}

/// The `retry` member of a retry-topic record.
struct RetryFields: Sendable, Hashable {
    var attempt: Int?
    var dueAtMilliseconds: Int64?
}
