import Foundation
import SalvoTestSupport

/// Debian's `nghttpd` as an independent HTTP/2 server: a POST sink answering 200 for every
/// `/3/device/<token>` whose file exists under its document root, 404 otherwise. It listens on
/// 127.0.0.1 port 0; the port is read back from /proc. The test stops it in `defer`.
final class NGHTTPDServer {
    let port: Int
    private let process: BackgroundProcess
    private let documentRoot: URL

    /// - Parameters:
    ///   - tokens: Tokens (lowercase hex) that answer 200.
    ///   - requireClientCertificate: `--verify-client`: the handshake fails without a client
    ///     certificate (nghttpd does not check its issuer).
    init(pki: TestPKI, tokens: [String], requireClientCertificate: Bool = false, maxConcurrentStreams: Int = 100) throws
    {
        self.documentRoot = pki.directory.appendingPathComponent("www-\(UUID().uuidString)")
        let devices = self.documentRoot.appendingPathComponent("3/device")
        try FileManager.default.createDirectory(at: devices, withIntermediateDirectories: true)
        for token in tokens {
            _ = FileManager.default.createFile(atPath: devices.appendingPathComponent(token).path, contents: Data())
        }
        var arguments = ["-a", "127.0.0.1", "-m", String(maxConcurrentStreams), "-d", self.documentRoot.path]
        if requireClientCertificate { arguments.append("--verify-client") }
        arguments += ["0", pki.serverKeyPath, pki.serverCertificatePath]
        let process = try BackgroundProcess(
            name: "nghttpd", executable: URL(fileURLWithPath: "/usr/sbin/nghttpd"), arguments: arguments)
        self.process = process
        do {
            self.port = try process.listeningPort()
        } catch {
            process.killAndWait()
            throw error
        }
    }

    /// SIGKILL: nghttpd ignores SIGTERM.
    func stop() {
        self.process.killAndWait()
        try? FileManager.default.removeItem(at: self.documentRoot)
    }
}
