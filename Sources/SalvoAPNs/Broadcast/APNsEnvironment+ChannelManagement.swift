extension APNsEnvironment {
    /// Where channel-management requests for this environment go: Apple's
    /// `api-manage-broadcast.push.apple.com:2196` (production) and
    /// `api-manage-broadcast.sandbox.push.apple.com:2195` (development); a custom endpoint (the
    /// mock's `--broadcast-listen`) is taken as given.
    public var channelManagement: APNsEnvironment {
        switch self {
        case .production:
            return .custom(host: "api-manage-broadcast.push.apple.com", port: 2196, behavesAs: .production)
        case .sandbox:
            return .custom(host: "api-manage-broadcast.sandbox.push.apple.com", port: 2195, behavesAs: .sandbox)
        case .custom: return self
        }
    }
}
