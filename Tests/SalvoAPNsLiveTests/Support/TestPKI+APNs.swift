import NIOSSL
import SalvoTestSupport

@testable import SalvoAPNs

extension TestPKI {
    /// The client certificate as the APNs connection takes it.
    var clientCredential: APNsCertificateCredential {
        get throws { try APNsCertificateCredential(certificateChain: [clientCertificate], privateKey: clientKey) }
    }

    /// The client transport trusting only this CA.
    var transport: APNsConnection.Transport { .tls(trustRoots: .certificates([self.caCertificate])) }
}
