/// Apple's request rules, applied to a request as a server receives it, answering the reason APNs
/// would. The mock APNs server uses it to answer like Apple; the client applies the same rules
/// through the model types (``DeviceToken``, ``APNsPushType/violation(topic:priority:)``,
/// ``APNsRequest/checkPayload(_:pushType:)``) before sending.
///
/// Authentication (JWT, client certificate) is deliberately not checked here: it depends on the
/// connection, not on the request, and the mock checks it separately.
///
/// Checks run in this order, the first failure wins: method (`MethodNotAllowed`), path (`BadPath`,
/// `MissingDeviceToken`, `BadDeviceToken`), repeated headers (`DuplicateHeaders`), topic
/// (`MissingTopic`, `BadTopic`), push type (`InvalidPushType`), priority (`BadPriority`), the push
/// type's topic and priority rules (`BadTopic`, `BadPriority`), `TopicDisallowed`, expiration
/// (`BadExpirationDate`), collapse id (`BadCollapseId`), apns-id (`BadMessageId`), body size
/// (`PayloadEmpty`, `PayloadTooLarge`).
public struct APNsRequestValidator: Sendable {
    /// The topic a request without `apns-topic` gets. Apple allows leaving the header out only on a
    /// certificate connection whose certificate names a single topic, so set it per connection to
    /// that topic; nil (the default) answers `MissingTopic`.
    public var topicWhenMissing: APNsTopic?

    /// Decides whether this connection may push to a topic (for example: the topics of its
    /// certificate, or of its team). A `false` answers `TopicDisallowed`. Default: every topic.
    public var isTopicAllowed: @Sendable (APNsTopic) -> Bool

    public init(
        topicWhenMissing: APNsTopic? = nil, isTopicAllowed: @escaping @Sendable (APNsTopic) -> Bool = { _ in true }
    ) {
        self.topicWhenMissing = topicWhenMissing
        self.isTopicAllowed = isTopicAllowed
    }

    /// The outcome of ``inspect(method:path:headers:bodySize:)``.
    public enum Verdict: Sendable, Hashable {
        case accepted(APNsReceivedRequest)
        case rejected(APNsReason)
    }

    /// The reason APNs would answer, or nil when the request is valid.
    public func validate(
        method: some Collection<UInt8>,
        path: some Collection<UInt8>,
        headers: some Sequence<APNsHeaderField>,
        bodySize: Int
    ) -> APNsReason? {
        switch inspect(method: method, path: path, headers: headers, bodySize: bodySize) {
        case .accepted: return nil
        case .rejected(let reason): return reason
        }
    }

    /// Validates the request and, when it is valid, returns what it asked for.
    /// - Parameter headers: Regular headers in the order received, duplicates kept (pseudo-headers
    ///   may be included; they take part in the duplicate check only).
    public func inspect(
        method: some Collection<UInt8>,
        path: some Collection<UInt8>,
        headers: some Sequence<APNsHeaderField>,
        bodySize: Int
    ) -> Verdict {
        guard Self.isPOST(method) else { return .rejected(.methodNotAllowed) }
        let token: DeviceToken
        switch DeviceToken.parse(path: path) {
        case .success(let parsed): token = parsed
        case .failure(let reason): return .rejected(reason)
        }
        // One dynamic call turns the caller's sequence into an array (free when it is one), so the
        // per-field work below is specialised rather than walked through protocol witnesses.
        guard let fields = Fields(Array(headers)) else { return .rejected(.duplicateHeaders) }
        return check(fields, token: token, bodySize: bodySize)
    }

    /// Compares through one dynamic call rather than byte by byte through protocol witnesses
    /// (callers in other modules pass types this module cannot specialise for).
    private static func isPOST(_ method: some Collection<UInt8>) -> Bool {
        method.withContiguousStorageIfAvailable { $0.elementsEqual(APNsRequest.method) }
            ?? Array(method).elementsEqual(APNsRequest.method)
    }

    private func check(_ fields: Fields, token: DeviceToken, bodySize: Int) -> Verdict {
        let topic: APNsTopic
        if let value = fields.topic {
            guard let parsed = APNsTopic(headerValue: value) else { return .rejected(.badTopic) }
            topic = parsed
        } else {
            guard let fallback = topicWhenMissing else { return .rejected(.missingTopic) }
            topic = fallback
        }

        let pushType: APNsPushType
        if let value = fields.pushType {
            guard let parsed = APNsPushType(headerValue: value) else { return .rejected(.invalidPushType) }
            pushType = parsed
        } else {
            pushType = APNsPushType.inferred(fromTopic: topic)
        }

        var priority = APNsPriority.immediate
        if let value = fields.priority {
            guard let parsed = APNsPriority(headerValue: value) else { return .rejected(.badPriority) }
            priority = parsed
        }

        if let violation = pushType.violation(topic: topic, priority: priority) { return .rejected(violation) }
        guard isTopicAllowed(topic) else { return .rejected(.topicDisallowed) }

        var request = APNsReceivedRequest(
            token: token, topic: topic, pushType: pushType, priority: priority, bodySize: bodySize)
        if let value = fields.expiration {
            guard let parsed = APNsExpiration(headerValue: value) else { return .rejected(.badExpirationDate) }
            request.expiration = parsed
        }
        if let value = fields.collapseID {
            guard let parsed = APNsCollapseID(headerValue: value) else { return .rejected(.badCollapseId) }
            request.collapseID = parsed
        }
        if let value = fields.apnsID {
            guard let parsed = APNsID(headerValue: value) else { return .rejected(.badMessageId) }
            request.apnsID = parsed
        }
        request.authorization = fields.authorization

        if bodySize <= 0 { return .rejected(.payloadEmpty) }
        if bodySize > pushType.maximumPayloadSize { return .rejected(.payloadTooLarge) }
        return .accepted(request)
    }

    /// The APNs headers of one request, collected in one pass; nil when any name repeats.
    private struct Fields {
        var topic: [UInt8]?
        var pushType: [UInt8]?
        var priority: [UInt8]?
        var expiration: [UInt8]?
        var collapseID: [UInt8]?
        var apnsID: [UInt8]?
        var authorization: [UInt8]?

        init?(_ headers: [APNsHeaderField]) {
            // A known name repeats when its slot is already filled; other names (rare) are
            // remembered in a list. No allocation for the usual request.
            var otherNames: [[UInt8]] = []
            func store(_ value: [UInt8], in slot: inout [UInt8]?) -> Bool {
                if slot != nil { return false }
                slot = value
                return true
            }
            for field in headers {
                let stored: Bool
                switch field.name {
                case APNsHeaderField.Name.topic: stored = store(field.value, in: &topic)
                case APNsHeaderField.Name.pushType: stored = store(field.value, in: &pushType)
                case APNsHeaderField.Name.priority: stored = store(field.value, in: &priority)
                case APNsHeaderField.Name.expiration: stored = store(field.value, in: &expiration)
                case APNsHeaderField.Name.collapseID: stored = store(field.value, in: &collapseID)
                case APNsHeaderField.Name.apnsID: stored = store(field.value, in: &apnsID)
                case APNsHeaderField.Name.authorization: stored = store(field.value, in: &authorization)
                default:
                    stored = !otherNames.contains(field.name)
                    otherNames.append(field.name)
                }
                if !stored { return nil }
            }
        }
    }
}
