/// `apns-priority`: how urgently APNs delivers. Apple's default when the header is absent is 10.
public enum APNsPriority: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// 10: deliver at once (alerts the user).
    case immediate = 10
    /// 5: deliver considering the device's power (required for background pushes).
    case powerConsiderate = 5
    /// 1: lowest; may be grouped and delivered in bursts.
    case low = 1

    private static let immediateBytes: [UInt8] = Array("10".utf8)
    private static let powerConsiderateBytes: [UInt8] = Array("5".utf8)
    private static let lowBytes: [UInt8] = Array("1".utf8)

    /// Parses the header value ("10", "5" or "1"); nil for anything else (APNs: `BadPriority`).
    public init?(headerValue: some Collection<UInt8>) {
        guard let number = ASCII.parseDecimal(headerValue), let priority = APNsPriority(rawValue: Int(number)) else {
            return nil
        }
        self = priority
    }

    /// The header value bytes (shared, never rebuilt).
    public var headerValue: [UInt8] {
        switch self {
        case .immediate: return Self.immediateBytes
        case .powerConsiderate: return Self.powerConsiderateBytes
        case .low: return Self.lowBytes
        }
    }

    public var description: String { String(rawValue) }
}
