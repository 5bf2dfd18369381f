import Foundation
import SalvoTestSupport
import Testing

/// TLS identity with the real binaries: a DNS host is matched by DNS entries of the server
/// certificate only. Without that rule, `salvo send --host localhost` would accept a certificate
/// naming only `IP:127.0.0.1` (swift-nio-ssl matches an IP entry against the address connected to,
/// whatever name was asked for).
@Suite("TLS identity of the APNs server", .serialized)
struct TLSIdentityTests {
    @Test(
        "a certificate naming only IP 127.0.0.1 is refused for the DNS host localhost, and works for the IP host 127.0.0.1"
    )
    func ipOnlyCertificate() async throws {
        try await TLSIdentityStage.with(certificateFor: ["127.0.0.1"]) { stage in
            let refused = try await stage.send(host: "localhost")
            #expect(refused.status == 69, "exit \(refused.status): \(refused.stdoutText) \(refused.stderr)")
            let output = refused.stdoutText + refused.stderr
            #expect(output.contains("not valid for localhost"), "\(output)")
            #expect(output.contains("no DNS name"), "\(output)")

            let byAddress = try await stage.send(host: "127.0.0.1")
            #expect(byAddress.status == 0, "exit \(byAddress.status): \(byAddress.stdoutText) \(byAddress.stderr)")
        }
    }

    @Test("a certificate naming DNS localhost is accepted for localhost and refused for 127.0.0.1")
    func dnsCertificate() async throws {
        try await TLSIdentityStage.with(certificateFor: ["localhost"]) { stage in
            let accepted = try await stage.send(host: "localhost")
            #expect(accepted.status == 0, "exit \(accepted.status): \(accepted.stdoutText) \(accepted.stderr)")
            // An IP host needs an IP entry: a DNS entry never matches an address.
            let byAddress = try await stage.send(host: "127.0.0.1")
            #expect(byAddress.status == 69, "exit \(byAddress.status): \(byAddress.stdoutText) \(byAddress.stderr)")
        }
    }
}
