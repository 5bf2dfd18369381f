import Foundation
import Logging
import NIOCore
import SalvoAPNs
import SalvoMockAPNs
import SalvoTestSupport
import Synchronization
import Testing

/// Salvo as another package's dependency: Examples/SendOne, resolved by version from a tagged
/// repository of the working tree, builds (SwiftPM refuses such a dependency if a target of a
/// product it uses has unsafe flags) and sends one notification with `SalvoAPNs`, token
/// credential and TLS, to the mock in this process, which records exactly that notification.
@Suite struct ConsumerPackageTests {
    @Test("Examples/SendOne builds against Salvo by version and sends one notification to the mock")
    func sendOneBuildsAndSends() async throws {
        let consumer = ConsumerPackage()
        let build = try await consumer.build(timeout: .seconds(45 * 60))
        #expect(build.status == 0, "swift build of Examples/SendOne:\n\(build.stdoutText)\n\(build.stderr)")
        guard build.status == 0 else { return }
        print("ConsumerPackageTests: Examples/SendOne built in \(build.elapsed)")

        let material = try MockTLSMaterial.generate()
        let files = try ExternalProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: files) }
        try material.write(to: files.path)
        var configuration = MockAPNsServer.Configuration()
        configuration.transport = .tls(try material.serverTLS(acceptClientCertificates: false))
        configuration.tokenKeys = [material.tokenKey]
        var logger = Logger(label: "salvo.mock-apns.test")
        logger.logLevel = .error
        let listener = AcceptedPushes()
        let server = try MockAPNsServer(configuration: configuration, listeners: [listener], logger: logger)
        let port = try await server.start().port
        let token = String(repeating: "ab", count: 32)
        let payload = #"{"aps":{"alert":{"title":"SendOne","body":"one notification"}}}"#
        let run = try await withCleanUp(server, cleanUp: { await $0.shutdown() }) { _ in
            try await ExternalProcess.run(
                consumer.executable,
                [
                    "--host", "127.0.0.1", "--port", "\(port)",
                    "--ca-file", files.appendingPathComponent(MockTLSMaterial.FileName.caCertificate).path,
                    "--key-file",
                    files.appendingPathComponent(MockTLSMaterial.FileName.tokenKey(keyID: material.tokenKeyID)).path,
                    "--key-id", material.tokenKeyID, "--team-id", material.tokenTeamID, "--topic", material.topic,
                    "--token", token, "--payload", payload,
                ], timeout: .seconds(60))
        }
        #expect(run.status == 0, "SendOne: \(run.stdoutText)\n\(run.stderr)")
        #expect(run.stdoutText.hasPrefix("accepted "), "\(run.stdoutText)")

        let pushes = listener.pushes
        try #require(pushes.count == 1, "the mock accepted \(pushes.count) notifications")
        #expect(pushes[0].request.token.hex == token)
        #expect(pushes[0].request.topic.string == material.topic)
        #expect(pushes[0].request.pushType == .alert)
        #expect(String(buffer: pushes[0].payload) == payload)
        #expect(run.stdoutText.contains("\(pushes[0].apnsID)"), "SendOne printed the apns-id the mock answered")
    }
}

/// The notifications the mock accepted, in order.
private final class AcceptedPushes: MockAPNsListener {
    private let accepted = Mutex<[MockAcceptedPush]>([])

    var pushes: [MockAcceptedPush] { self.accepted.withLock { $0 } }

    func pushAccepted(_ push: MockAcceptedPush) {
        self.accepted.withLock { $0.append(push) }
    }

    func flush() {}
}
