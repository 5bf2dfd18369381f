import SalvoAPNs

extension JobRejection {
    /// The rejection for a rule SalvoAPNs enforces (topic, priority, payload, …), keeping its message.
    init(_ error: APNsError) {
        let reason: Reason
        switch error.code {
        case .invalidTopic: reason = .invalidTopic
        case .invalidPriority: reason = .invalidPriority
        case .invalidPushType: reason = .invalidPushType
        case .invalidExpiration: reason = .invalidExpiration
        case .invalidCollapseID: reason = .invalidCollapseID
        case .invalidDeviceToken: reason = .invalidToken
        case .payloadTooLarge: reason = .payloadTooLarge
        case .payloadEmpty, .payloadNotJSONObject: reason = .invalidPayload
        default: reason = .invalidField
        }
        self.init(reason, error.message)
    }
}
