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
            let bit = UInt32(1) << field.ordinal
            defer { bits |= bit }
            return bits & bit == 0
        }
    }

    /// The member's position, for ``SeenSet``: a jump table, where searching `allCases` for it
    /// cost ~60 instructions a member.
    private var ordinal: Int {
        switch self {
        case .id: 0
        case .app: 1
        case .token: 2
        case .tokens: 3
        case .payload: 4
        case .payloadRaw: 5
        case .pushType: 6
        case .priority: 7
        case .expiration: 8
        case .collapseID: 9
        case .topic: 10
        case .environment: 11
        case .campaignID: 12
        case .perToken: 13
        case .channelID: 14
        case .retry: 15
        }
    }

    /// A member name of at most 16 bytes packed into two little-endian words and its length: the
    /// form ``init(name:)`` compares.
    private struct PackedName: Equatable {
        var low: UInt64 = 0
        var high: UInt64 = 0
        var count = 0

        init?(_ bytes: UnsafeRawBufferPointer) {
            guard bytes.count <= 16 else { return nil }
            count = bytes.count
            for index in 0..<bytes.count {
                if index < 8 {
                    low |= UInt64(bytes[index]) << (8 * UInt64(index))
                } else {
                    high |= UInt64(bytes[index]) << (8 * UInt64(index - 8))
                }
            }
        }
    }

    /// Each member's packed name, for ``init(name:)``: plain integers, so the search neither
    /// retains nor compares arrays (it did, ~450 instructions a per-user job).
    private static let names: [(name: PackedName, field: JobField)] = allCases.map { field in
        var text = field.rawValue
        return (text.withUTF8 { PackedName(UnsafeRawBufferPointer($0))! }, field)
    }

    /// The member a name without escapes spells, read from the message's bytes: making a String
    /// of every member name, then switching over strings, cost more than reading the member.
    init?(name: UnsafeRawBufferPointer) {
        guard let packed = PackedName(name) else { return nil }
        for entry in Self.names where entry.name == packed {
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
