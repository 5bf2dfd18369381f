import SalvoAPNs
import SalvoHTTP2

extension MockAPNsServer {
    /// Everything the server needs at start. `validate()` is the one validation place.
    public struct Configuration: Sendable {
        /// Address the APNs listener binds. Default: "127.0.0.1".
        public var host: String = "127.0.0.1"
        /// Port of the APNs listener; 0 picks a free port (read it from `start()`). Default: 0.
        public var port: Int = 0
        /// TLS (with ALPN h2, optionally client certificates) or cleartext HTTP/2. Default: h2c.
        public var transport: Transport = .h2c
        /// Provider-token keys the mock trusts. With none (and no client CA), requests are not
        /// authenticated. Default: none.
        public var tokenKeys: [MockTokenKey] = []
        /// The Apple environment mimicked: sandbox answers carry `apns-unique-id`.
        /// Default: production.
        public var environment: APNsEnvironment.Kind = .production
        /// Faults and latency. Default: a well-behaved APNs.
        public var scenario: MockScenario = MockScenario()
        /// Apple's rules, or the fast path that answers 200 to anything. Default: `.apple`.
        public var validation: Validation = .apple
        /// Writes one NDJSON line per accepted notification to this file. Default: nil (off).
        public var recordPath: String?
        /// Address of the admin HTTP/1.1 listener (`/metrics`, `/stats`, controls); nil disables
        /// it. Default: nil.
        public var adminHost: String?
        /// Port of the admin listener; 0 picks a free port. Default: 0.
        public var adminPort: Int = 0
        /// Address of the channel-management listener (Apple's `api-manage-broadcast` API, HTTP/2
        /// with the APNs listener's transport and authentication); nil disables it. Default: nil.
        public var broadcastHost: String?
        /// Port of the channel-management listener; 0 picks a free port. Default: 0.
        public var broadcastPort: Int = 0
        /// Channels per app (the server mimics one environment). Default: Apple's 10,000.
        public var channelLimit: Int = MockChannelStore.appleLimit
        /// Bundle ids answered `FeatureNotEnabled` on the broadcast and channel endpoints (the app
        /// has no broadcast capability). Default: none.
        public var broadcastFeatureDisabled: Set<String> = []
        /// Bundle ids answered `TopicDisallowed` on the broadcast and channel endpoints.
        /// Default: none.
        public var broadcastDisallowed: Set<String> = []
        /// The bundle ids each team's provider tokens may name on the broadcast and channel
        /// endpoints (403 `TopicMismatch` for any other); a team not listed may name any, as
        /// the mock does not know which apps a team owns. Default: none.
        public var teamBundleIDs: [String: Set<String>] = [:]
        /// A rule of your own, checked after Apple's rules and authentication and before the
        /// scenario (Pushy's pluggable validation handler): return a reason to reject. Default: nil.
        public var additionalRule: (@Sendable (APNsReceivedRequest) -> APNsReason?)?
        /// HTTP/2 session settings. `maxConcurrentStreams` is taken from the scenario.
        /// Default: SalvoHTTP2's defaults, with the per-answer `apns-id` and `apns-unique-id`
        /// sent as literals HPACK never indexes.
        public var http2: HTTP2SessionHandler.Configuration = Self.defaultHTTP2

        private static var defaultHTTP2: HTTP2SessionHandler.Configuration {
            var configuration = HTTP2SessionHandler.Configuration()
            configuration.unindexedHeaders = ["apns-id", "apns-unique-id"]
            return configuration
        }

        public init() {}

        /// Whether requests must authenticate: a client CA or token keys are configured.
        public var requiresAuthentication: Bool {
            if !self.tokenKeys.isEmpty { return true }
            if case .tls(let tls) = self.transport { return !tls.clientCertificateAuthorities.isEmpty }
            return false
        }

        public func validate() throws(MockAPNsError) {
            guard (0...65_535).contains(self.port) else {
                throw MockAPNsError(.invalidConfiguration, "port must be within 0…65535, got \(self.port)")
            }
            guard (0...65_535).contains(self.adminPort) else {
                throw MockAPNsError(.invalidConfiguration, "admin port must be within 0…65535, got \(self.adminPort)")
            }
            guard (0...65_535).contains(self.broadcastPort) else {
                throw MockAPNsError(
                    .invalidConfiguration, "broadcast port must be within 0…65535, got \(self.broadcastPort)")
            }
            guard self.channelLimit >= 0 else {
                throw MockAPNsError(
                    .invalidConfiguration, "channel limit must not be negative, got \(self.channelLimit)")
            }
            if self.validation == .none && self.recordPath != nil {
                throw MockAPNsError(
                    .invalidConfiguration,
                    "recording needs validation: the no-validation fast path parses nothing to record")
            }
            try self.scenario.validate()
            var http2 = self.http2
            http2.maxConcurrentStreams = self.scenario.maxConcurrentStreams
            do {
                try http2.validate()
            } catch {
                throw MockAPNsError(.invalidConfiguration, "http2: \(error.message)")
            }
        }
    }
}
