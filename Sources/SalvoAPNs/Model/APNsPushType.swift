/// `apns-push-type`, with Apple's rules for the topic and the priority each type accepts.
///
/// Only rules Apple documents are enforced: the topic suffix of the PushKit-style types, priority 5
/// for background, 10 or 5 for location, 10 for push-to-talk, and the VoIP payload limit. Other
/// types accept every priority; alert/background/mdm topics only need to be well formed (an app's
/// bundle id may itself end in ".voip", so suffixes are not forbidden elsewhere).
public enum APNsPushType: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case alert
    case background
    case location
    case voip
    case complication
    case fileprovider
    case mdm
    case liveactivity
    case pushtotalk
    case widgets
    case controls

    /// Payload limit for every type but VoIP.
    public static let defaultMaximumPayloadSize = 4096
    /// Payload limit for VoIP.
    public static let voipMaximumPayloadSize = 5120

    private static let headerValues: [APNsPushType: [UInt8]] = Dictionary(
        uniqueKeysWithValues: allCases.map { ($0, Array($0.rawValue.utf8)) }
    )

    /// Parses the header value; nil for a type Apple does not define (APNs: `InvalidPushType`).
    public init?(headerValue: some Collection<UInt8>) {
        for (type, bytes) in Self.parseTable where ASCII.equalsCaseInsensitive(headerValue, lowercase: bytes) {
            self = type
            return
        }
        return nil
    }

    /// Every type with its header bytes, in one array: parsing walks it instead of looking each
    /// type's bytes up in `headerValues` (a hash per type tried, on every request a server reads).
    private static let parseTable: [(APNsPushType, [UInt8])] = allCases.map { ($0, Array($0.rawValue.utf8)) }

    /// The push type a topic implies when the header is absent: the type whose suffix the topic
    /// carries, else alert (what APNs assumes for headerless requests).
    public static func inferred(fromTopic topic: APNsTopic) -> APNsPushType {
        allCases.first { type in type.topicSuffix.map { topic.hasSuffixRule($0) } ?? false } ?? .alert
    }

    /// The header value bytes (shared, never rebuilt).
    public var headerValue: [UInt8] {
        Self.headerValues[self]!
    }

    /// What the topic must end with: `<bundle id><suffix>`; nil when the topic is the bundle id
    /// itself (alert, background) or unrelated to it (mdm).
    public var topicSuffix: String? {
        switch self {
        case .alert, .background, .mdm: return nil
        case .location: return ".location-query"
        case .voip: return ".voip"
        case .complication: return ".complication"
        case .fileprovider: return ".pushkit.fileprovider"
        case .liveactivity: return ".push-type.liveactivity"
        case .pushtotalk: return ".voip-ptt"
        case .widgets: return ".push-type.widgets"
        case .controls: return ".push-type.controls"
        }
    }

    /// Priorities Apple accepts for this type.
    public var allowedPriorities: Set<APNsPriority> {
        switch self {
        case .background: return [.powerConsiderate]
        case .location: return [.immediate, .powerConsiderate]
        case .pushtotalk: return [.immediate]
        default: return Set(APNsPriority.allCases)
        }
    }

    /// ``allowedPriorities`` as a check that builds no Set: it runs for every request a server
    /// validates.
    public func allows(_ priority: APNsPriority) -> Bool {
        switch self {
        case .background: return priority == .powerConsiderate
        case .location: return priority == .immediate || priority == .powerConsiderate
        case .pushtotalk: return priority == .immediate
        default: return true
        }
    }

    /// Largest payload APNs accepts for this type, in bytes.
    public var maximumPayloadSize: Int {
        self == .voip ? Self.voipMaximumPayloadSize : Self.defaultMaximumPayloadSize
    }

    /// The topic for an app's bundle id: `com.example.app` → `com.example.app.voip` for VoIP.
    /// Not meaningful for mdm, whose topic is the MDM push topic.
    public func topic(forBundleID bundleID: String) throws(APNsError) -> APNsTopic {
        try APNsTopic(bundleID + (topicSuffix ?? ""))
    }

    /// The reason APNs answers when this type is combined with `topic` and `priority`, or nil when
    /// the combination is valid. Shared by the client (before sending) and the mock server.
    public func violation(topic: APNsTopic, priority: APNsPriority) -> APNsReason? {
        if let suffix = topicSuffix, !topic.hasSuffixRule(suffix) { return .badTopic }
        if !allows(priority) { return .badPriority }
        return nil
    }

    public var description: String { rawValue }
}
