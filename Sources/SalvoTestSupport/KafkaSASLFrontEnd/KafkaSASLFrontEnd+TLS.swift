import NIOSSL

extension KafkaSASLFrontEnd {
    /// The certificate the front end presents when clients connect with TLS (librdkafka's
    /// `SSL` and `SASL_SSL`). Generate it at test time with ``TestPKI``; nothing is committed.
    public struct TLS: Sendable {
        public var certificateChain: [NIOSSLCertificate]
        public var privateKey: NIOSSLPrivateKey

        public init(certificateChain: [NIOSSLCertificate], privateKey: NIOSSLPrivateKey) {
            self.certificateChain = certificateChain
            self.privateKey = privateKey
        }

        /// The PKI's server certificate (for localhost and 127.0.0.1), issued by its CA: a client
        /// trusts it with `ssl.ca.location` set to ``TestPKI/caCertificatePath``.
        public init(pki: TestPKI) {
            self.init(certificateChain: [pki.serverCertificate], privateKey: pki.serverKey)
        }

        /// No ALPN: Kafka clients do not negotiate an application protocol.
        func makeContext() throws -> NIOSSLContext {
            let configuration = TLSConfiguration.makeServerConfiguration(
                certificateChain: certificateChain.map { .certificate($0) }, privateKey: .privateKey(privateKey))
            return try NIOSSLContext(configuration: configuration)
        }
    }
}
