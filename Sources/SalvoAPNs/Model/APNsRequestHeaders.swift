/// The validated headers every notification of one job shares: topic, push type, priority,
/// expiration and collapse id.
///
/// Built (and checked against Apple's push-type rules) once per job; the header bytes are encoded
/// here once, so a campaign to 100,000 tokens encodes them once, not 100,000 times.
public struct APNsRequestHeaders: Sendable, Hashable {
    /// The fields live in one immutable object, so a request (copied into batches, queues and
    /// in-flight tables on its way) retains one reference for them instead of one per string.
    private final class Storage: Sendable {
        let topic: APNsTopic
        let pushType: APNsPushType
        let priority: APNsPriority
        let expiration: APNsExpiration?
        let collapseID: APNsCollapseID?
        let fields: [APNsHeaderField]

        init(
            topic: APNsTopic, pushType: APNsPushType, priority: APNsPriority, expiration: APNsExpiration?,
            collapseID: APNsCollapseID?, fields: [APNsHeaderField]
        ) {
            self.topic = topic
            self.pushType = pushType
            self.priority = priority
            self.expiration = expiration
            self.collapseID = collapseID
            self.fields = fields
        }
    }

    private let storage: Storage

    public var topic: APNsTopic { storage.topic }
    public var pushType: APNsPushType { storage.pushType }
    public var priority: APNsPriority { storage.priority }
    /// Nil leaves `apns-expiration` out (APNs applies its own storage policy).
    public var expiration: APNsExpiration? { storage.expiration }
    public var collapseID: APNsCollapseID? { storage.collapseID }

    /// The encoded fields, in the order they are sent.
    public var fields: [APNsHeaderField] { storage.fields }

    /// Validates the combination, throwing with the rule and the reason APNs would answer.
    /// - Parameter priority: Default: 10 (Apple's default), or 5 for background pushes, which
    ///   Apple requires to be 5.
    public init(
        topic: APNsTopic,
        pushType: APNsPushType,
        priority: APNsPriority? = nil,
        expiration: APNsExpiration? = nil,
        collapseID: APNsCollapseID? = nil
    ) throws(APNsError) {
        let priority = priority ?? (pushType == .background ? .powerConsiderate : .immediate)
        if let violation = pushType.violation(topic: topic, priority: priority) {
            throw Self.error(for: violation, topic: topic, pushType: pushType, priority: priority)
        }
        var fields = [
            APNsHeaderField(name: APNsHeaderField.Name.topic, value: topic.headerValue),
            APNsHeaderField(name: APNsHeaderField.Name.pushType, value: pushType.headerValue),
            APNsHeaderField(name: APNsHeaderField.Name.priority, value: priority.headerValue),
        ]
        if let expiration {
            fields.append(APNsHeaderField(name: APNsHeaderField.Name.expiration, value: expiration.headerValue))
        }
        if let collapseID {
            fields.append(APNsHeaderField(name: APNsHeaderField.Name.collapseID, value: collapseID.headerValue))
        }
        self.storage = Storage(
            topic: topic, pushType: pushType, priority: priority, expiration: expiration, collapseID: collapseID,
            fields: fields)
    }

    public static func == (lhs: APNsRequestHeaders, rhs: APNsRequestHeaders) -> Bool {
        lhs.storage === rhs.storage || lhs.fields == rhs.fields
    }

    /// The fields determine the rest (they encode every property).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(fields)
    }

    private static func error(
        for violation: APNsReason,
        topic: APNsTopic,
        pushType: APNsPushType,
        priority: APNsPriority
    ) -> APNsError {
        if violation == .badTopic, let suffix = pushType.topicSuffix {
            return APNsError(
                code: .invalidTopic,
                message: "\(pushType) pushes need the topic <bundle id>\(suffix), got \"\(topic)\"",
                reason: violation
            )
        }
        let allowed = pushType.allowedPriorities.map(\.rawValue).sorted(by: >).map(String.init).joined(
            separator: " or ")
        return APNsError(
            code: .invalidPriority,
            message: "\(pushType) pushes need priority \(allowed), got \(priority.rawValue)",
            reason: violation
        )
    }
}
