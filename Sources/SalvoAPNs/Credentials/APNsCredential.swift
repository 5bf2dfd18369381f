import NIOSSL

/// How a provider proves to APNs that it may push: a client certificate in the TLS handshake, or
/// a signed JWT (provider token) on every request. Pools are keyed by credential and environment.
public enum APNsCredential: Sendable, CustomStringConvertible {
    case certificate(APNsCertificateCredential)
    case token(APNsTokenCredential)

    /// The TLS settings a connection with this credential uses: TLS 1.2 or later, ALPN `h2` only,
    /// and, in certificate mode, the client certificate and key.
    /// - Parameter trustRoots: Default: the system's roots (Apple's gateways); tests and the mock
    ///   pass their own CA.
    public func makeTLSConfiguration(trustRoots: NIOSSLTrustRoots = .default) -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        configuration.applicationProtocols = ["h2"]
        configuration.trustRoots = trustRoots
        if case .certificate(let certificate) = self {
            configuration.certificateChain = certificate.certificateChain.map { .certificate($0) }
            configuration.privateKey = .privateKey(certificate.privateKey)
        }
        return configuration
    }

    public var description: String {
        switch self {
        case .certificate(let certificate): return certificate.description
        case .token(let token): return token.description
        }
    }
}
