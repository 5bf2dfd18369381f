import NIOSSL
import SalvoAPNs
import SalvoMockAPNs
import SalvoWorker

extension EngineMock {
    /// A mock over TLS with material of its own (a CA, a server certificate for 127.0.0.1, a .p8
    /// key it verifies every JWT with); `body` gets it and the app `news` sending to it over TLS
    /// with a provider token signed by that key.
    static func withTLS<T>(_ body: (EngineMock, WorkerApp) async throws -> T) async throws -> T {
        let material = try MockTLSMaterial.generate()
        let caCertificate = try NIOSSLCertificate(bytes: Array(material.caCertificatePEM.utf8), format: .pem)
        return try await with(
            tls: try material.serverTLS(acceptClientCertificates: false), tokenKeys: [material.tokenKey]
        ) { mock in
            let app = try mock.app(
                transport: .tls(trustRoots: .certificates([caCertificate])), credential: try material.tokenCredential())
            return try await body(mock, app)
        }
    }
}
