extension KafkaSASLFrontEnd {
    /// What the front end has seen since it started, for tests to assert on (a wrong password
    /// must fail *at the front end*, not because the broker was unreachable).
    public struct Statistics: Sendable, Hashable, CustomStringConvertible {
        /// Client connections accepted (TCP; TLS may still fail after).
        public var connections = 0
        /// Connections that authenticated, by mechanism.
        public var authenticated: [KafkaSASLMechanism: Int] = [:]
        /// SaslAuthenticate exchanges that failed (wrong user or password, malformed token).
        public var authenticationFailures = 0
        /// Handshakes naming a mechanism that is not enabled.
        public var unsupportedMechanisms = 0
        /// Connections closed for sending another request before authenticating.
        public var refusedRequests = 0
        /// Client connections whose TLS handshake failed (e.g. the client does not trust the CA).
        public var tlsFailures = 0
        /// Connections to the broker behind that could not be opened.
        public var upstreamFailures = 0
        /// The users that authenticated, in order.
        public var users: [String] = []
        /// Why each connection failed before authenticating, in order, for a failing test's
        /// message: mechanism, user and step, never a password.
        public var failureReasons: [String] = []

        public init() {}

        /// All authenticated connections, whatever the mechanism.
        public var authenticatedConnections: Int { authenticated.values.reduce(0, +) }

        public var description: String {
            let mechanisms = authenticated.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key)=\($0.value)" }
            return
                "connections \(connections), authenticated [\(mechanisms.joined(separator: ", "))], "
                + "authentication failures \(authenticationFailures), unsupported mechanisms \(unsupportedMechanisms), "
                + "refused requests \(refusedRequests), TLS failures \(tlsFailures), upstream failures \(upstreamFailures)"
        }

        mutating func count(_ failure: KafkaSASLSession.Failure) {
            switch failure {
            case .unsupportedMechanism(let name):
                unsupportedMechanisms += 1
                failureReasons.append("unsupported mechanism \(name)")
            case .authenticationFailed(let mechanism, let reason):
                authenticationFailures += 1
                failureReasons.append("\(mechanism): \(reason)")
            case .refusedRequest(let reason):
                refusedRequests += 1
                failureReasons.append("refused: \(reason)")
            }
        }
    }
}
