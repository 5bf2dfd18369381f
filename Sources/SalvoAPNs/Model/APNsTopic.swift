/// A validated `apns-topic`: 1…255 bytes of visible ASCII (bundle ids, their PushKit suffixes and
/// MDM topics are all of that shape). The header bytes are kept so sending never re-encodes.
public struct APNsTopic: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// Longest topic accepted.
    public static let maximumLength = 255

    /// The topic as sent in the `apns-topic` header.
    public let headerValue: [UInt8]

    public init(_ topic: String) throws(APNsError) {
        guard let topic = APNsTopic(headerValue: topic.utf8) else {
            throw APNsError(
                code: .invalidTopic,
                message: "topic must be 1…\(Self.maximumLength) visible ASCII characters, got \"\(topic)\"",
                reason: .badTopic
            )
        }
        self = topic
    }

    /// Parses a header value; nil when it is not a well-formed topic (APNs: `BadTopic`).
    public init?(headerValue: some Collection<UInt8>) {
        guard !headerValue.isEmpty, headerValue.count <= Self.maximumLength, headerValue.allSatisfy(ASCII.isVisible)
        else {
            return nil
        }
        self.headerValue = Array(headerValue)
    }

    /// For literals in code and tests; a malformed literal is a programming error and traps.
    /// Note that `APNsTopic("literal")` also takes this path (SE-0213); topics from configuration
    /// or input go through the throwing ``init(_:)`` with a `String` value.
    public init(stringLiteral value: String) {
        do {
            try self.init(value)
        } catch {
            preconditionFailure("invalid APNs topic literal \"\(value)\": \(error.message)")
        }
    }

    public var string: String { String(decoding: headerValue, as: UTF8.self) }

    public var description: String { string }

    /// Whether the topic is `<non-empty bundle id><suffix>`.
    func hasSuffixRule(_ suffix: String) -> Bool {
        let suffixBytes = suffix.utf8
        return headerValue.count > suffixBytes.count && headerValue.reversed().starts(with: suffixBytes.reversed())
    }
}
