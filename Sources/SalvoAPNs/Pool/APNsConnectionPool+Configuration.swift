extension APNsConnectionPool {
    /// Settings of one pool (one credential and environment).
    public struct Configuration: Sendable {
        /// The pool's name: the `pool` dimension of its `salvo_apns_*` metrics and the `apns-pool`
        /// field of its log lines. The worker names each pool `<app>/<environment>`. Default: nil,
        /// `<credential>/<environment>` (`TEAMID.KEYID/production`, or the certificate's bundle id).
        public var name: String?
        /// Connections kept open. Apple suggests several for volume; each carries as many
        /// concurrent requests as APNs allows (often 1000). Default: 2.
        public var connectionCount = 2
        /// The most requests in flight on one connection, whatever the server advertises; the
        /// server's lower SETTINGS_MAX_CONCURRENT_STREAMS always wins. Default: 1000.
        public var maximumStreamsPerConnection = 1000
        /// How often a request that was not sent (refused stream, above a GOAWAY's last stream
        /// id, connection gone before it left) is replayed on another connection before the caller
        /// gets ``APNsOutcome/failed(_:)`` with ``APNsError/Code/notSent``. Default: 3.
        public var maximumReplays = 3
        /// Callers (single sends or batches) that may wait for stream credit at once; a caller
        /// beyond this gets ``APNsError/Code/notSent`` at once instead of queuing without bound.
        /// Default: 10,000.
        public var maximumWaitingCallers = 10_000
        /// Queued requests fail as ``APNsError/Code/notSent`` when no stream credit became free
        /// for this long (every connection down or stuck). Default: 30 s.
        public var queueTimeout: Duration = .seconds(30)
        /// Reconnect delays. Default: 100 ms doubling to 30 s, 50 % jitter.
        public var backoff = APNsBackoff()
        /// Settings of each connection (transport, timeouts, keepalive).
        public var connection = APNsConnection.Configuration()

        public init() {}

        /// The one validation place.
        public func validate() throws(APNsError) {
            func require(_ condition: Bool, _ message: String) throws(APNsError) {
                if !condition { throw APNsError(code: .invalidConfiguration, message: message) }
            }
            try require((1...64).contains(self.connectionCount), "connectionCount must be within 1...64")
            try require(self.maximumStreamsPerConnection >= 1, "maximumStreamsPerConnection must be at least 1")
            try require(self.maximumReplays >= 0, "maximumReplays must not be negative")
            try require(self.maximumWaitingCallers >= 0, "maximumWaitingCallers must not be negative")
            try require(self.queueTimeout > .zero, "queueTimeout must be positive")
            try self.backoff.validate()
            try self.connection.validate()
        }
    }
}
