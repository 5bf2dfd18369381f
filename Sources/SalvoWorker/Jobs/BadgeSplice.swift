import NIOCore

/// Where a per-token badge is written into a job's payload, found once per job so that each
/// overridden token costs one copy of the payload with a few bytes changed, and every other
/// token still sends the original bytes untouched (the no-re-encode promise).
///
/// The rule (docs/jobs.md): the payload's top-level `aps` member must be an object or absent.
/// - `aps.badge` present: its value bytes are replaced by the override.
/// - `aps` present without `badge`: `"badge":N` becomes the first member of `aps`.
/// - no `aps`: `"aps":{"badge":N}` becomes the first member of the payload.
/// A payload with two `aps` members, two `badge` members in `aps`, or a non-object `aps` cannot
/// take an override unambiguously and the job is rejected (`invalid_per_token`).
struct BadgeSplice: Sendable, Hashable {
    enum Site: Sendable, Hashable {
        /// Replace these bytes (the value of `aps.badge`).
        case replace(Range<Int>)
        /// Insert `"badge":N` right after `aps`'s `{`, which is at `offset - 1`.
        case insertIntoAps(offset: Int, isEmpty: Bool)
        /// Insert `"aps":{"badge":N}` right after the payload's `{`, which is at `offset - 1`.
        case insertAps(offset: Int, isEmpty: Bool)
    }

    let site: Site

    /// Finds the site in a payload that was already validated as one JSON object.
    static func locate(in payload: ByteBuffer) throws(JobRejection) -> BadgeSplice {
        try JSONScanner.withScanner(over: payload) { scanner throws(JobRejection) in
            var aps: Site?
            var isPayloadEmpty = true
            let object = try scanner.forEachMember { key, scanner throws(JobRejection) in
                isPayloadEmpty = false
                guard scanner.string(key) == "aps" else {
                    try scanner.skipValue()
                    return
                }
                guard aps == nil else { throw Self.ambiguous("the payload has two aps members") }
                guard scanner.peekKind() == .object else {
                    throw Self.ambiguous("payload.aps must be an object to take a per-token badge")
                }
                aps = try scanner.locateBadge()
            }
            return BadgeSplice(site: aps ?? .insertAps(offset: object.lowerBound + 1, isEmpty: isPayloadEmpty))
        }
    }

    /// The payload's size once a badge of `digits` characters is spliced in.
    func splicedSize(payloadSize: Int, digits: Int) -> Int {
        switch site {
        case .replace(let range):
            return payloadSize - range.count + digits
        case .insertIntoAps(_, let isEmpty):
            return payloadSize + Self.badgeMember.count + digits + (isEmpty ? 0 : 1)
        case .insertAps(_, let isEmpty):
            return payloadSize + Self.apsMemberPrefix.count + digits + 1 + (isEmpty ? 0 : 1)
        }
    }

    /// A new payload with `badge` spliced in; `payload` itself is left unchanged.
    func apply(badge: Int, to payload: ByteBuffer) -> ByteBuffer {
        let digits = Array(String(badge).utf8)
        let bytes = payload.readableBytesView
        var output = ByteBuffer()
        output.reserveCapacity(splicedSize(payloadSize: bytes.count, digits: digits.count))
        switch site {
        case .replace(let range):
            output.writeBytes(bytes.prefix(range.lowerBound))
            output.writeBytes(digits)
            output.writeBytes(bytes.dropFirst(range.upperBound))
        case .insertIntoAps(let offset, let isEmpty):
            output.writeBytes(bytes.prefix(offset))
            output.writeBytes(Self.badgeMember)
            output.writeBytes(digits)
            if !isEmpty { output.writeInteger(UInt8(ascii: ",")) }
            output.writeBytes(bytes.dropFirst(offset))
        case .insertAps(let offset, let isEmpty):
            output.writeBytes(bytes.prefix(offset))
            output.writeBytes(Self.apsMemberPrefix)
            output.writeBytes(digits)
            output.writeInteger(UInt8(ascii: "}"))
            if !isEmpty { output.writeInteger(UInt8(ascii: ",")) }
            output.writeBytes(bytes.dropFirst(offset))
        }
        return output
    }

    private static let badgeMember: [UInt8] = Array(#""badge":"#.utf8)
    private static let apsMemberPrefix: [UInt8] = Array(#""aps":{"badge":"#.utf8)

    fileprivate static func ambiguous(_ message: String) -> JobRejection {
        JobRejection(.invalidPerToken, message)
    }
}

extension JSONScanner {
    /// Inside `aps` (the scanner is at its `{`): where the badge goes.
    fileprivate mutating func locateBadge() throws(JobRejection) -> BadgeSplice.Site {
        skipWhitespace()
        let contentStart = index + 1
        var badge: Range<Int>?
        var isEmpty = true
        try forEachMember { key, scanner throws(JobRejection) in
            isEmpty = false
            let isBadge = scanner.string(key) == "badge"
            let range = try scanner.skipValue()
            guard isBadge else { return }
            guard badge == nil else { throw BadgeSplice.ambiguous("payload.aps has two badge members") }
            badge = range
        }
        if let badge { return .replace(badge) }
        return .insertIntoAps(offset: contentStart, isEmpty: isEmpty)
    }
}
