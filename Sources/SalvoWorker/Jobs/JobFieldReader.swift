import NIOCore
import SalvoAPNs

/// Reads a job message into ``JobFields`` in one pass: each member's type and value range are
/// checked as it is met, the token array is validated in place, and the payload is only located
/// (its bytes are sliced out later, never copied or decoded).
struct JobFieldReader {
    /// Longest `id`, `app` or `campaign_id`, in bytes. Ids end up in Kafka keys and headers.
    static let maximumIdentifierLength = 256
    /// Highest `retry.attempt` a retry record may carry.
    static let maximumRetryAttempt = 1_000

    let message: ByteBuffer
    let maximumTokens: Int
    /// Whether the `retry` member is read (retry-topic records) or ignored like any unknown member.
    let readsRetry: Bool

    func read(into fields: inout JobFields) throws(JobRejection) {
        try JSONScanner.withScanner(over: message) { scanner throws(JobRejection) in
            let kind = scanner.peekKind()
            guard kind == .object else {
                try scanner.skipValue()
                try scanner.expectEnd()
                throw JobRejection(.notAnObject, "a job must be a JSON object, found \(kind?.name ?? "nothing")")
            }
            try scanner.forEachMember { key, scanner throws(JobRejection) in
                // Matched on the bytes (no String per member) unless the name has escapes.
                let field =
                    key.hasEscapes
                    ? JobField(rawValue: scanner.string(key))
                    : JobField(name: UnsafeRawBufferPointer(rebasing: scanner.bytes[key.range]))
                try readMember(field, &scanner, &fields)
            }
            try scanner.expectEnd()
        }
    }

    private func readMember(
        _ field: JobField?, _ scanner: inout JSONScanner, _ fields: inout JobFields
    ) throws(JobRejection) {
        guard let field, field != .retry || readsRetry else {
            try scanner.skipValue()
            return
        }
        guard fields.seen.insert(field) else {
            throw JobRejection(.duplicateField, "\(field.rawValue) appears more than once")
        }
        guard let kind = scanner.peekKind() else { throw scanner.syntaxError(expecting: "a value") }
        if kind == .null {
            try scanner.skipValue()
            return
        }
        switch field {
        case .id:
            fields.id = try identifier(field, kind, &scanner)
        case .app:
            fields.app = try identifier(field, kind, &scanner)
        case .campaignID:
            fields.campaignID = try identifier(field, kind, &scanner)
        case .token:
            fields.singleToken = try scanner.scanSingleToken()
        case .tokens:
            try expect(field, kind, .array)
            var tokens = JobTokenList(message: message)
            try scanner.scanTokenArray(maximum: maximumTokens, into: &tokens, rejections: &fields.tokenRejections)
            fields.tokens = tokens
        case .payload:
            try expect(field, kind, .object)
            let range = try scanner.skipValue()
            fields.payload = message.getSlice(at: message.readerIndex + range.lowerBound, length: range.count)
        case .payloadRaw:
            try expect(field, kind, .string)
            fields.payloadRaw = ByteBuffer(bytes: scanner.unescapedBytes(try scanner.scanString()))
        case .pushType:
            try expect(field, kind, .string)
            let text = try scanner.scanDecodedString()
            guard let pushType = APNsPushType(rawValue: text) else {
                throw JobRejection(
                    .invalidPushType,
                    "push_type \"\(text)\" is not one of \(APNsPushType.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            fields.pushType = pushType
        case .priority:
            try expect(field, kind, .number)
            guard let value = try scanner.scanInteger(), let priority = APNsPriority(rawValue: Int(clamping: value))
            else {
                throw JobRejection(.invalidPriority, "priority must be the integer 10, 5 or 1")
            }
            fields.priority = priority
        case .expiration:
            try expect(field, kind, .number)
            guard let value = try scanner.scanInteger(), value >= 0 else {
                throw JobRejection(.invalidExpiration, "expiration must be an integer of UNIX seconds ≥ 0")
            }
            fields.expiration = value
        case .collapseID:
            try expect(field, kind, .string)
            fields.collapseID = try scanner.scanDecodedString()
        case .topic:
            try expect(field, kind, .string)
            fields.topic = try scanner.scanDecodedString()
        case .environment:
            try expect(field, kind, .string)
            let text = try scanner.scanDecodedString()
            guard let environment = APNsEnvironment.Kind(rawValue: text) else {
                throw JobRejection(
                    .invalidEnvironment, "environment must be \"production\" or \"sandbox\", got \"\(text)\"")
            }
            fields.environment = environment
        case .perToken:
            try expect(field, kind, .object)
            fields.badges = try readPerToken(&scanner)
        case .retry:
            try expect(field, kind, .object)
            fields.retry = try readRetry(&scanner)
        case .channelID:
            fields.channelID = try identifier(field, kind, &scanner)
        }
    }

    private func expect(_ field: JobField, _ kind: JSONValueKind, _ expected: JSONValueKind) throws(JobRejection) {
        guard kind == expected else {
            throw JobRejection(
                field.typeMismatchReason, "\(field.rawValue) must be \(expected.name), found \(kind.name)")
        }
    }

    /// A non-empty string of at most ``maximumIdentifierLength`` bytes without control characters.
    /// Checked on the message's bytes when the string has no escapes (the common case), so a
    /// rejected id never becomes a `String` and an accepted one is built once.
    private func identifier(
        _ field: JobField, _ kind: JSONValueKind, _ scanner: inout JSONScanner
    ) throws(JobRejection) -> String {
        try expect(field, kind, .string)
        let span = try scanner.scanString()
        let isValid: Bool
        let text: String
        if span.hasEscapes {
            var decoded = scanner.string(span)
            isValid = decoded.withUTF8 { Self.isIdentifier(UnsafeRawBufferPointer($0)) }
            text = decoded
        } else {
            let bytes = UnsafeRawBufferPointer(rebasing: scanner.bytes[span.range])
            isValid = Self.isIdentifier(bytes)
            text = isValid ? String(decoding: bytes, as: UTF8.self) : ""
        }
        guard isValid else {
            throw JobRejection(
                field.typeMismatchReason,
                "\(field.rawValue) must be 1…\(Self.maximumIdentifierLength) bytes without control characters")
        }
        return text
    }

    /// On a raw buffer, not a generic collection: over a slice it was ~220 instructions an id.
    private static func isIdentifier(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard !bytes.isEmpty, bytes.count <= maximumIdentifierLength else { return false }
        for byte in bytes where byte < 0x20 || byte == 0x7F { return false }
        return true
    }

    /// `{"<token>": {"badge": <0…2147483647>}, …}`: keys are tokens (either case), each value
    /// holds exactly one member, `badge`.
    private func readPerToken(_ scanner: inout JSONScanner) throws(JobRejection) -> [DeviceToken: Int] {
        var badges: [DeviceToken: Int] = [:]
        try scanner.forEachMember { key, scanner throws(JobRejection) in
            let text = scanner.string(key)
            guard let token = try? DeviceToken(hex: text) else {
                throw JobRejection(.invalidPerToken, "per_token key \"\(text.prefix(80))\" is not a device token")
            }
            guard badges[token] == nil else {
                throw JobRejection(.invalidPerToken, "per_token names token \(token) twice")
            }
            guard badges.count < maximumTokens else {
                throw JobRejection(.invalidPerToken, "per_token holds more than \(maximumTokens) entries")
            }
            guard scanner.peekKind() == .object else {
                throw JobRejection(.invalidPerToken, "per_token[\(token)] must be an object {\"badge\": N}")
            }
            var badge: Int?
            try scanner.forEachMember { member, scanner throws(JobRejection) in
                guard scanner.string(member) == "badge", badge == nil else {
                    throw JobRejection(.invalidPerToken, "per_token[\(token)] may hold only one member, badge")
                }
                guard let value = try scanner.scanInteger(), (0...Int64(Int32.max)).contains(value) else {
                    throw JobRejection(.invalidPerToken, "per_token[\(token)].badge must be an integer 0…\(Int32.max)")
                }
                badge = Int(value)
            }
            guard let badge else {
                throw JobRejection(.invalidPerToken, "per_token[\(token)] must hold badge")
            }
            badges[token] = badge
        }
        return badges
    }

    /// `{"attempt": N, "due_at_ms": N}`; other members are ignored, missing ones are reported by
    /// the retry decoder.
    private func readRetry(_ scanner: inout JSONScanner) throws(JobRejection) -> RetryFields {
        var retry = RetryFields()
        try scanner.forEachMember { key, scanner throws(JobRejection) in
            switch scanner.string(key) {
            case "attempt":
                guard let value = try scanner.scanInteger(), (1...Int64(Self.maximumRetryAttempt)).contains(value)
                else {
                    throw JobRejection(.invalidRetry, "retry.attempt must be an integer 1…\(Self.maximumRetryAttempt)")
                }
                retry.attempt = Int(value)
            case "due_at_ms":
                guard let value = try scanner.scanInteger(), value >= 0 else {
                    throw JobRejection(.invalidRetry, "retry.due_at_ms must be an integer ≥ 0")
                }
                retry.dueAtMilliseconds = value
            default:
                try scanner.skipValue()
            }
        }
        return retry
    }
}
