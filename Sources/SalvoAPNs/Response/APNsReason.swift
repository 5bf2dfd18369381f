/// The `reason` APNs gives when it refuses a notification, with Apple's HTTP status and what a
/// sender should do about it. Reasons Apple adds later are kept as text (``other(_:)``).
///
/// It is an `Error` so server-side checks can fail with the reason APNs would answer.
public enum APNsReason: Error, Sendable, Hashable, CustomStringConvertible {
    // 400
    case badCollapseId
    case badDeviceToken
    case badExpirationDate
    case badMessageId
    case badPriority
    case badTopic
    case deviceTokenNotForTopic
    case duplicateHeaders
    case idleTimeout
    case invalidPushType
    case missingDeviceToken
    case missingTopic
    case payloadEmpty
    case topicDisallowed
    // 400, broadcast and channel management only (Apple's broadcast reason table)
    case missingChannelId
    case badChannelId
    case channelNotRegistered
    case badRequestParams
    case badRequestPayload
    case cannotCreateChannelConfig
    case missingPushType
    case featureNotEnabled
    // 403
    case badCertificate
    case badCertificateEnvironment
    case expiredProviderToken
    case forbidden
    case invalidProviderToken
    case missingProviderToken
    case unrelatedKeyIdInToken
    case badEnvironmentKeyInToken
    /// Broadcast and channel management: the bundle in the path is not the credential's.
    case topicMismatch
    // 404, 405
    case badPath
    case methodNotAllowed
    // 410
    case expiredToken
    case unregistered
    // 413
    case payloadTooLarge
    // 429
    case tooManyProviderTokenUpdates
    case tooManyRequests
    // 500, 503
    case internalServerError
    case serviceUnavailable
    case shutdown
    /// A reason this table does not know, exactly as APNs sent it.
    case other(String)

    /// Every reason Apple documents (all but ``other(_:)``).
    public static let documented: [APNsReason] = [
        .badCollapseId, .badDeviceToken, .badExpirationDate, .badMessageId, .badPriority, .badTopic,
        .deviceTokenNotForTopic, .duplicateHeaders, .idleTimeout, .invalidPushType, .missingDeviceToken,
        .missingTopic, .payloadEmpty, .topicDisallowed, .badCertificate, .badCertificateEnvironment,
        .expiredProviderToken, .forbidden, .invalidProviderToken, .missingProviderToken,
        .unrelatedKeyIdInToken, .badEnvironmentKeyInToken, .badPath, .methodNotAllowed, .expiredToken,
        .unregistered, .payloadTooLarge, .tooManyProviderTokenUpdates, .tooManyRequests,
        .internalServerError, .serviceUnavailable, .shutdown,
    ]

    /// The reasons only the broadcast endpoint and the channel-management API answer. Kept apart
    /// from ``documented`` (the device-token table) because device pushes never see them; the
    /// reasons both tables share (`BadExpirationDate`, `InvalidPushType`, …) are in ``documented``.
    public static let broadcastOnly: [APNsReason] = [
        .missingChannelId, .badChannelId, .channelNotRegistered, .badRequestParams, .badRequestPayload,
        .cannotCreateChannelConfig, .missingPushType, .featureNotEnabled, .topicMismatch,
    ]

    /// Every reason Apple documents for any endpoint: ``documented`` then ``broadcastOnly``.
    public static let allDocumented: [APNsReason] = documented + broadcastOnly

    private static let byString: [String: APNsReason] = Dictionary(
        uniqueKeysWithValues: allDocumented.map { ($0.string, $0) }
    )

    /// Longest unknown reason kept, in UTF-8 bytes: Apple's longest is 27. An answer's body
    /// comes from the network (up to the connection's body limit); its reason ends up in logs,
    /// errors and dead-letter headers.
    public static let maximumOtherLength = 64

    /// Maps Apple's string to a reason; unknown strings become ``other(_:)``, cut to
    /// ``maximumOtherLength`` bytes (at a character boundary).
    public init(_ string: String) {
        if let known = Self.byString[string] {
            self = known
        } else if string.utf8.count <= Self.maximumOtherLength {
            self = .other(string)
        } else {
            var cut = ""
            for character in string {
                guard cut.utf8.count + character.utf8.count <= Self.maximumOtherLength else { break }
                cut.append(character)
            }
            self = .other(cut)
        }
    }

    /// The value for a metric's `reason` label: Apple's string for a documented reason, `other`
    /// for any other, so an unknown reason (chosen by whoever answers) cannot create new series.
    public var metricLabel: String {
        if case .other = self { return "other" }
        return self.string
    }

    /// ``metricLabel`` of the reason spelled `string` (as records and retry reasons carry it).
    public static func metricLabel(_ string: String) -> String {
        Self.byString[string] == nil ? "other" : string
    }

    /// Apple's string, as in the response body.
    public var string: String {
        switch self {
        case .badCollapseId: return "BadCollapseId"
        case .badDeviceToken: return "BadDeviceToken"
        case .badExpirationDate: return "BadExpirationDate"
        case .badMessageId: return "BadMessageId"
        case .badPriority: return "BadPriority"
        case .badTopic: return "BadTopic"
        case .deviceTokenNotForTopic: return "DeviceTokenNotForTopic"
        case .duplicateHeaders: return "DuplicateHeaders"
        case .idleTimeout: return "IdleTimeout"
        case .invalidPushType: return "InvalidPushType"
        case .missingDeviceToken: return "MissingDeviceToken"
        case .missingTopic: return "MissingTopic"
        case .payloadEmpty: return "PayloadEmpty"
        case .topicDisallowed: return "TopicDisallowed"
        case .missingChannelId: return "MissingChannelId"
        case .badChannelId: return "BadChannelId"
        case .channelNotRegistered: return "ChannelNotRegistered"
        case .badRequestParams: return "BadRequestParams"
        case .badRequestPayload: return "BadRequestPayload"
        case .cannotCreateChannelConfig: return "CannotCreateChannelConfig"
        case .missingPushType: return "MissingPushType"
        case .featureNotEnabled: return "FeatureNotEnabled"
        case .topicMismatch: return "TopicMismatch"
        case .badCertificate: return "BadCertificate"
        case .badCertificateEnvironment: return "BadCertificateEnvironment"
        case .expiredProviderToken: return "ExpiredProviderToken"
        case .forbidden: return "Forbidden"
        case .invalidProviderToken: return "InvalidProviderToken"
        case .missingProviderToken: return "MissingProviderToken"
        case .unrelatedKeyIdInToken: return "UnrelatedKeyIdInToken"
        case .badEnvironmentKeyInToken: return "BadEnvironmentKeyInToken"
        case .badPath: return "BadPath"
        case .methodNotAllowed: return "MethodNotAllowed"
        case .expiredToken: return "ExpiredToken"
        case .unregistered: return "Unregistered"
        case .payloadTooLarge: return "PayloadTooLarge"
        case .tooManyProviderTokenUpdates: return "TooManyProviderTokenUpdates"
        case .tooManyRequests: return "TooManyRequests"
        case .internalServerError: return "InternalServerError"
        case .serviceUnavailable: return "ServiceUnavailable"
        case .shutdown: return "Shutdown"
        case .other(let string): return string
        }
    }

    /// The HTTP status APNs sends with this reason; nil for ``other(_:)`` (the response has it).
    public var status: Int? {
        switch self {
        case .badCollapseId, .badDeviceToken, .badExpirationDate, .badMessageId, .badPriority, .badTopic,
            .deviceTokenNotForTopic, .duplicateHeaders, .idleTimeout, .invalidPushType, .missingDeviceToken,
            .missingTopic, .payloadEmpty, .topicDisallowed, .missingChannelId, .badChannelId, .channelNotRegistered,
            .badRequestParams, .badRequestPayload, .cannotCreateChannelConfig, .missingPushType, .featureNotEnabled:
            return 400
        case .topicMismatch, .badCertificate, .badCertificateEnvironment, .expiredProviderToken, .forbidden,
            .invalidProviderToken, .missingProviderToken, .unrelatedKeyIdInToken, .badEnvironmentKeyInToken:
            return 403
        case .badPath: return 404
        case .methodNotAllowed: return 405
        case .expiredToken, .unregistered: return 410
        case .payloadTooLarge: return 413
        case .tooManyProviderTokenUpdates, .tooManyRequests: return 429
        case .internalServerError: return 500
        case .serviceUnavailable, .shutdown: return 503
        case .other: return nil
        }
    }

    /// What to do after this answer (Apple's retry matrix) when it comes with its own ``status``.
    /// Unknown reasons are not retried here; ``APNsResponse/retryPolicy`` decides by the status
    /// first and consults this only for a reason paired with the status it came with.
    public var retryPolicy: APNsRetryPolicy {
        switch self {
        case .tooManyRequests: return .afterDelayPerToken
        case .expiredProviderToken: return .refreshTokenAndReplay
        case .tooManyProviderTokenUpdates, .internalServerError, .serviceUnavailable, .shutdown: return .backoff
        default: return .never
        }
    }

    /// Whether sending the same notification again can never succeed.
    public var isPermanent: Bool { retryPolicy == .never }

    /// Whether the device token is dead or wrong, so an invalid-token event goes to the feedback
    /// topic (410 Unregistered/ExpiredToken, 400 BadDeviceToken/DeviceTokenNotForTopic).
    public var producesFeedback: Bool {
        switch self {
        case .unregistered, .expiredToken, .badDeviceToken, .deviceTokenNotForTopic: return true
        default: return false
        }
    }

    /// Whether the broadcast channel is gone, so a channel feedback event goes out (keyed by the
    /// channel id) and producers stop using it.
    public var producesChannelFeedback: Bool { self == .channelNotRegistered }

    public var description: String { string }
}
