import NIOSSL

extension MockAPNsServer {
    /// The server's certificate and key, and the authorities whose client certificates it
    /// accepts (certificate authentication). Clients without a certificate are still accepted and
    /// must then use provider tokens, as on Apple's gateways.
    public struct TLS: Sendable {
        public var certificateChain: [NIOSSLCertificate]
        public var privateKey: NIOSSLPrivateKey
        /// Empty: client certificates are neither requested nor checked. Default: empty.
        public var clientCertificateAuthorities: [NIOSSLCertificate]

        public init(
            certificateChain: [NIOSSLCertificate], privateKey: NIOSSLPrivateKey,
            clientCertificateAuthorities: [NIOSSLCertificate] = []
        ) {
            self.certificateChain = certificateChain
            self.privateKey = privateKey
            self.clientCertificateAuthorities = clientCertificateAuthorities
        }

        /// Loads PEM files (`--tls-cert`, `--tls-key`, `--client-ca`).
        public static func load(
            certificatePath: String, keyPath: String, clientCAPath: String? = nil
        ) throws(MockAPNsError) -> TLS {
            do {
                let chain = try NIOSSLCertificate.fromPEMFile(certificatePath)
                guard !chain.isEmpty else {
                    throw MockAPNsError(.invalidKeyMaterial, "\(certificatePath) holds no PEM certificate")
                }
                let key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
                let authorities = try clientCAPath.map { try NIOSSLCertificate.fromPEMFile($0) } ?? []
                return TLS(certificateChain: chain, privateKey: key, clientCertificateAuthorities: authorities)
            } catch let error as MockAPNsError {
                throw error
            } catch {
                throw MockAPNsError(
                    .invalidKeyMaterial,
                    "cannot load TLS material (\(certificatePath), \(keyPath)\(clientCAPath.map { ", \($0)" } ?? ""))",
                    underlying: "\(error)")
            }
        }

        /// NIOSSL's server configuration: TLS 1.2+, ALPN `h2` only, client certificates verified
        /// when presented (never required: token clients have none).
        func makeContext() throws(MockAPNsError) -> NIOSSLContext {
            var configuration = TLSConfiguration.makeServerConfiguration(
                certificateChain: self.certificateChain.map { .certificate($0) },
                privateKey: .privateKey(self.privateKey))
            configuration.minimumTLSVersion = .tlsv12
            configuration.applicationProtocols = ["h2"]
            if !self.clientCertificateAuthorities.isEmpty {
                configuration.certificateVerification = .optionalVerification
                configuration.trustRoots = .certificates(self.clientCertificateAuthorities)
                configuration.sendCANameList = true
            }
            do {
                return try NIOSSLContext(configuration: configuration)
            } catch {
                throw MockAPNsError(.invalidKeyMaterial, "cannot build the TLS context", underlying: "\(error)")
            }
        }
    }
}
