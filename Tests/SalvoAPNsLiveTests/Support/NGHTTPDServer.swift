import Foundation

/// Debian's `nghttpd` as an independent HTTP/2 server: a POST sink answering 200 for every
/// `/3/device/<token>` whose file exists under its document root, 404 otherwise. It listens on
/// 127.0.0.1 port 0; the port is read back from /proc. The test stops it in `defer`.
final class NGHTTPDServer {
    let port: Int
    private let process: Process
    private let documentRoot: URL

    /// - Parameters:
    ///   - tokens: Tokens (lowercase hex) that answer 200.
    ///   - requireClientCertificate: `--verify-client`: the handshake fails without a client
    ///     certificate (nghttpd does not check its issuer).
    init(pki: TestPKI, tokens: [String], requireClientCertificate: Bool = false, maxConcurrentStreams: Int = 100) throws {
        self.documentRoot = pki.directory.appendingPathComponent("www-\(UUID().uuidString)")
        let devices = self.documentRoot.appendingPathComponent("3/device")
        try FileManager.default.createDirectory(at: devices, withIntermediateDirectories: true)
        for token in tokens {
            _ = FileManager.default.createFile(atPath: devices.appendingPathComponent(token).path, contents: Data())
        }
        var arguments = ["-a", "127.0.0.1", "-m", String(maxConcurrentStreams), "-d", self.documentRoot.path]
        if requireClientCertificate { arguments.append("--verify-client") }
        arguments += ["0", pki.serverKeyPath, pki.serverCertificatePath]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/nghttpd")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        do {
            self.port = try Self.listeningPort(of: process.processIdentifier)
        } catch {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw error
        }
    }

    /// SIGKILL: nghttpd ignores SIGTERM.
    func stop() {
        if self.process.isRunning {
            kill(self.process.processIdentifier, SIGKILL)
            self.process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: self.documentRoot)
    }

    /// The TCP port `pid` listens on: its socket inodes matched against /proc/net/tcp. Polls for
    /// up to 5 s while the process starts.
    private static func listeningPort(of pid: Int32) throws -> Int {
        for _ in 0..<500 {
            let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
            let inodes = Set(
                descriptors.compactMap { descriptor -> String? in
                    guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(descriptor)"),
                        target.hasPrefix("socket:[")
                    else { return nil }
                    return String(target.dropFirst("socket:[".count).dropLast())
                })
            let table = (try? String(contentsOfFile: "/proc/net/tcp", encoding: .utf8)) ?? ""
            for line in table.split(separator: "\n").dropFirst() {
                // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
                let fields = line.split(separator: " ")
                guard fields.count > 9, fields[3] == "0A", inodes.contains(String(fields[9])),
                    let portHex = fields[1].split(separator: ":").last, let port = Int(portHex, radix: 16)
                else { continue }
                return port
            }
            usleep(10_000)
        }
        throw LiveTestError("nghttpd (pid \(pid)) did not start listening")
    }
}

struct LiveTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
