import Foundation
import SalvoMockAPNs
import SalvoTestSupport

/// A `salvo mock-apns` over TLS whose server certificate names only `hosts` (DNS names and IPv4
/// addresses, generated here), and `salvo send` pointed at it: one real handshake per question,
/// as an operator would ask it.
struct TLSIdentityStage {
    let directory: URL
    let mock: BackgroundProcess
    let port: Int
    let material: MockTLSMaterial

    /// Starts a mock whose certificate is valid for `hosts` only; `body` runs while it serves.
    static func with(certificateFor hosts: [String], _ body: (TLSIdentityStage) async throws -> Void) async throws {
        let directory = try ExternalProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let material = try MockTLSMaterial.generate(hosts: hosts)
        let tokenKey = try material.write(to: directory.path)
        let mock = try BackgroundProcess.salvo(
            "mock-apns",
            [
                "mock-apns", "--listen", "127.0.0.1:0", "--admin", "off", "--log-level", "warning",
                "--tls-cert", directory.appendingPathComponent(MockTLSMaterial.FileName.serverCertificate).path,
                "--tls-key", directory.appendingPathComponent(MockTLSMaterial.FileName.serverPrivateKey).path,
                "--token-key", tokenKey,
            ])
        do {
            let line = try await mock.waitForOutput(containing: "listening on")
            guard let match = line.firstMatch(of: /127\.0\.0\.1:(\d+)/), let port = Int(match.1) else {
                throw TestFailure("no port in \(line)")
            }
            try await body(TLSIdentityStage(directory: directory, mock: mock, port: port, material: material))
        } catch {
            await mock.stop()
            throw error
        }
        await mock.stop()
    }

    /// `salvo send` of one push to the mock as `host` (with SNI and name check for a DNS host),
    /// trusting the mock's CA.
    func send(host: String) async throws -> ExternalProcess.Result {
        try await CommandRunner.salvo(
            [
                "send", "--host", host, "--port", String(port),
                "--ca-file", directory.appendingPathComponent(MockTLSMaterial.FileName.caCertificate).path,
                "--key-file",
                directory.appendingPathComponent(MockTLSMaterial.FileName.tokenKey(keyID: material.tokenKeyID)).path,
                "--team-id", material.tokenTeamID, "--apns-topic", material.topic,
                "--device-token", String(repeating: "ab", count: 32), "--timeout", "10",
            ], timeout: .seconds(30))
    }
}
