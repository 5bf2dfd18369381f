extension MockAPNsServer {
    /// What the APNs listener speaks.
    public enum Transport: Sendable {
        /// Cleartext HTTP/2 with prior knowledge (`curl --http2-prior-knowledge`, `h2load` with
        /// an `http://` URI).
        case h2c
        /// TLS 1.2+ with ALPN `h2`, like Apple's gateways.
        case tls(TLS)
    }
}
