/// The members the job schema defines (schema/job.schema.json). Any other member is ignored, so
/// producers can add fields before workers know them.
enum JobField: String, CaseIterable, Sendable {
    case id
    case app
    case token
    case tokens
    case payload
    case payloadRaw = "payload_raw"
    case pushType = "push_type"
    case priority
    case expiration
    case collapseID = "collapse_id"
    case topic
    case environment
    case campaignID = "campaign_id"
    case perToken = "per_token"
    /// A broadcast job's Live Activity channel, instead of `token`/`tokens` (``BroadcastJob``).
    case channelID = "channel_id"
    /// Only in records of the retry topic (``RetryRecord``); an ordinary job's `retry` is ignored.
    case retry

    /// Members met in one job, as bits: a hashed `Set` was almost half the cost of reading a
    /// per-user job's fields.
    struct SeenSet {
        private var bits: UInt32 = 0

        /// Adds `field`; false when it was already there.
        mutating func insert(_ field: JobField) -> Bool {
            let bit = UInt32(1) << (JobField.ordered.firstIndex(of: field) ?? 0)
            defer { bits |= bit }
            return bits & bit == 0
        }
    }

    /// The members in a fixed order, for ``SeenSet`` (a comparison of cases per step, no hashing).
    private static let ordered = allCases

    /// Each member's name as bytes, for ``init(name:)``.
    private static let names: [(field: JobField, bytes: [UInt8])] = allCases.map { ($0, Array($0.rawValue.utf8)) }

    /// The member a name without escapes spells, read from the message's bytes: making a String
    /// of every member name, then switching over strings, cost more than reading the member.
    init?(name: UnsafeRawBufferPointer) {
        for entry in Self.names where entry.bytes.count == name.count && entry.bytes.elementsEqual(name) {
            self = entry.field
            return
        }
        return nil
    }

    /// The rejection when the member has the wrong JSON type: the field's own reason where the
    /// schema has one, so a dashboard shows "invalid_priority" rather than a generic code.
    var typeMismatchReason: JobRejection.Reason {
        switch self {
        case .id, .app, .token, .tokens, .campaignID, .channelID: return .invalidField
        case .payload, .payloadRaw: return .invalidPayload
        case .pushType: return .invalidPushType
        case .priority: return .invalidPriority
        case .expiration: return .invalidExpiration
        case .collapseID: return .invalidCollapseID
        case .topic: return .invalidTopic
        case .environment: return .invalidEnvironment
        case .perToken: return .invalidPerToken
        case .retry: return .invalidRetry
        }
    }
}
