/// Where notifications go: Apple's production or sandbox gateway, or any host and port (the mock).
public enum APNsEnvironment: Sendable, Hashable, CustomStringConvertible {
    /// `api.push.apple.com`, for apps signed for distribution.
    case production
    /// `api.sandbox.push.apple.com`, for development builds.
    case sandbox
    /// Any endpoint speaking the APNs protocol, such as `salvo mock-apns`. `behavesAs` says which
    /// Apple environment the endpoint stands in for (it decides, for example, `apns-unique-id`).
    case custom(host: String, port: Int, behavesAs: Kind)

    /// The two environments Apple runs.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case production
        case sandbox
    }

    /// Apple's gateways accept 443 and, for networks that block it, 2197. Default: 443.
    public static let applePorts = [443, 2197]

    public var host: String {
        switch self {
        case .production: return "api.push.apple.com"
        case .sandbox: return "api.sandbox.push.apple.com"
        case .custom(let host, _, _): return host
        }
    }

    public var port: Int {
        switch self {
        case .production, .sandbox: return 443
        case .custom(_, let port, _): return port
        }
    }

    public var kind: Kind {
        switch self {
        case .production: return .production
        case .sandbox: return .sandbox
        case .custom(_, _, let kind): return kind
        }
    }

    public var description: String {
        switch self {
        case .production, .sandbox: return "\(kind.rawValue) (\(host):\(port))"
        case .custom(let host, let port, let kind): return "\(host):\(port) as \(kind.rawValue)"
        }
    }
}
