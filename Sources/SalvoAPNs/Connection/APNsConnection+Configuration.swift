import NIOSSL
import SalvoHTTP2

extension APNsConnection {
    /// How a connection reaches APNs: TLS (Apple's gateways, the mock over TLS) or cleartext
    /// HTTP/2 with prior knowledge (local tests against a mock only).
    public enum Transport: Sendable {
        /// TLS 1.2 or later, ALPN `h2`, the server certificate verified against `trustRoots`
        /// (Default roots: the system's, which is what Apple's gateways need; pass a custom CA
        /// for the mock). Certificate credentials present their client certificate here.
        case tls(trustRoots: NIOSSLTrustRoots = .default)
        /// h2c: no encryption, no server authentication. Certificate credentials cannot be used.
        /// Only to loopback addresses unless ``Configuration/allowsRemotePlaintext`` is set.
        case plaintext
    }

    /// Settings of one HTTP/2 connection to APNs. The defaults follow Apple's guidance: keep
    /// connections open, PING them when idle, and give a request a generous deadline.
    public struct Configuration: Sendable {
        /// TLS or h2c. Default: TLS with the system's trust roots.
        public var transport: Transport = .tls()
        /// Whether h2c (``Transport/plaintext``) may go to a host that is not a loopback address.
        /// Default: false: h2c sends the provider token, payloads and device tokens unencrypted,
        /// so it is for a mock on the same machine unless the operator says otherwise.
        public var allowsRemotePlaintext = false
        /// Overrides the name sent in SNI and checked against the server certificate.
        /// Default: nil, the environment's host. A DNS name must match a DNS entry of the
        /// certificate's subjectAltName (``APNsServerIdentity``); an IP address host sends no SNI
        /// and is checked against the certificate's IP entries.
        public var tlsServerName: String?
        /// From the TCP connect until the server's first SETTINGS (TCP, TLS handshake, HTTP/2
        /// preface). Default: 10 s.
        public var connectTimeout: Duration = .seconds(10)
        /// From sending a request until its response ends; a late stream is reset with CANCEL
        /// and the caller gets ``APNsError/Code/timedOut``. Default: 30 s.
        public var requestTimeout: Duration = .seconds(30)
        /// A connection that received nothing for this long sends a PING, so dead peers and
        /// NAT tables that forgot the connection are noticed before a push is lost to them.
        /// Default: 60 s.
        public var keepaliveInterval: Duration = .seconds(60)
        /// A PING not acknowledged within this time closes the connection. Default: 20 s.
        public var keepaliveTimeout: Duration = .seconds(20)
        /// nghttp2 session settings. Default: `HTTP2SessionHandler.Configuration()` keeping only
        /// the response headers APNs defines (`apns-id`, `apns-unique-id`) and sending each
        /// request's own `apns-id` as a literal HPACK never indexes.
        public var http2 = Self.defaultHTTP2

        public init() {}

        private static var defaultHTTP2: HTTP2SessionHandler.Configuration {
            var configuration = HTTP2SessionHandler.Configuration()
            configuration.keptResponseHeaders = ["apns-id", "apns-unique-id"]
            configuration.unindexedHeaders = ["apns-id"]
            return configuration
        }

        /// The one validation place: throws ``APNsError/Code/invalidConfiguration`` naming the
        /// setting.
        public func validate() throws(APNsError) {
            func require(_ condition: Bool, _ message: String) throws(APNsError) {
                if !condition { throw APNsError(code: .invalidConfiguration, message: message) }
            }
            try require(self.connectTimeout > .zero, "connectTimeout must be positive")
            try require(self.requestTimeout > .zero, "requestTimeout must be positive")
            try require(self.keepaliveInterval > .zero, "keepaliveInterval must be positive")
            try require(self.keepaliveTimeout > .zero, "keepaliveTimeout must be positive")
            if let name = self.tlsServerName { try require(!name.isEmpty, "tlsServerName must not be empty") }
            do {
                try self.http2.validate()
            } catch {
                throw APNsError(code: .invalidConfiguration, message: "http2: \(error.message)")
            }
        }
    }
}
