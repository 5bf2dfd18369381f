import Foundation
import SalvoMockAPNs
import SalvoTestSupport
import Testing

/// `salvo mock-apns` as an operator runs it: a child process that prints where it listens, serves,
/// and exits 0 on SIGTERM.
@Suite("salvo mock-apns as a subprocess")
struct CommandTests {
    static var salvoBinary: String {
        (try? ExternalProcess.salvoExecutable().path) ?? ".build/debug/salvo"
    }

    /// Starts `salvo` with `arguments`, its stdout collected; the caller terminates it (and a
    /// `defer` there kills it if the test fails first).
    static func launch(_ arguments: [String]) throws -> (Process, PipeReader) {
        let binary = Self.salvoBinary
        try #require(
            FileManager.default.isExecutableFile(atPath: binary), "build salvo first: swift build --build-tests")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        let stdout = PipeReader()
        process.standardOutput = stdout.pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        stdout.start()
        return (process, stdout)
    }

    /// Sends SIGTERM and expects a clean exit within 5 s; returns everything printed.
    static func terminate(_ process: Process, _ stdout: PipeReader) async throws -> String {
        process.terminate()
        for _ in 0..<500 where process.isRunning { try await Task.sleep(for: .milliseconds(10)) }
        #expect(!process.isRunning)
        #expect(process.terminationStatus == 0)
        #expect(process.terminationReason == .exit, "exits by itself, not killed by the signal")
        return await stdout.finished()
    }

    @Test("prints its addresses, answers curl, exits 0 on SIGTERM with its totals")
    func sigterm() async throws {
        let (process, stdout) = try Self.launch(
            ["mock-apns", "--h2c", "--listen", "127.0.0.1:0", "--admin", "127.0.0.1:0", "--log-level", "warning"])
        defer { if process.isRunning { process.terminate() } }

        #expect(await eventually(seconds: 10) { stdout.text.contains("admin on") })
        let printed = stdout.text
        let match = try #require(printed.firstMatch(of: /listening on http:\/\/127\.0\.0\.1:(\d+)/), "\(printed)")
        let port = String(match.1)

        let curl = try await ExternalProcess.run(
            "/usr/bin/curl",
            [
                "-sS", "--max-time", "10", "--http2-prior-knowledge", "-o", "/dev/null", "-w", "%{http_code}", "-X",
                "POST",
                "-H", "apns-topic: com.example.salvo", "--data-binary", #"{"aps":{}}"#,
                "http://127.0.0.1:\(port)/3/device/\(String(repeating: "ab", count: 32))",
            ])
        #expect(curl.stdoutText == "200")
        #expect(try await Self.terminate(process, stdout).contains("mock-apns stopped: 1 accepted"))
    }

    @Test("--generate-tls material serves TLS with token auth; --record writes the accepted push")
    func generatedTLSAndRecord() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mock-cli-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = { (name: String) in directory + "/" + name }
        let (generator, generated) = try Self.launch([
            "mock-apns", "--generate-tls", directory, "--bundle-id", "com.example.cli",
        ])
        for _ in 0..<1000 where generator.isRunning { try await Task.sleep(for: .milliseconds(10)) }
        #expect(generator.terminationStatus == 0)
        let printed = await generated.finished()
        let tokenKey = try #require(printed.firstMatch(of: /--token-key (\S+)/), "\(printed)").1
        for name in [
            MockTLSMaterial.FileName.caCertificate, MockTLSMaterial.FileName.serverCertificate,
            MockTLSMaterial.FileName.clientCertificate, MockTLSMaterial.FileName.providerToken,
        ] {
            #expect(FileManager.default.fileExists(atPath: file(name)), "\(name)")
        }

        let record = file("record.ndjson")
        let (process, stdout) = try Self.launch([
            "mock-apns", "--listen", "127.0.0.1:0", "--admin", "off", "--log-level", "warning",
            "--tls-cert", file(MockTLSMaterial.FileName.serverCertificate),
            "--tls-key", file(MockTLSMaterial.FileName.serverPrivateKey),
            "--token-key", String(tokenKey), "--record", record,
        ])
        defer { if process.isRunning { process.terminate() } }
        #expect(await eventually(seconds: 10) { stdout.text.contains("listening on") })
        let match = try #require(
            stdout.text.firstMatch(of: /listening on https:\/\/127\.0\.0\.1:(\d+)/), "\(stdout.text)")
        let jwt = try String(contentsOfFile: file(MockTLSMaterial.FileName.providerToken), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let apnsID = "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0"
        let curl = try await ExternalProcess.run(
            "/usr/bin/curl",
            [
                "-sS", "--max-time", "10", "--http2", "--cacert", file(MockTLSMaterial.FileName.caCertificate),
                "-o", "/dev/null", "-w", "%{http_code}", "--data-binary", TestPush.payload,
                "-H", "apns-topic: com.example.cli", "-H", "apns-id: \(apnsID)", "-H", "authorization: bearer \(jwt)",
                "https://127.0.0.1:\(match.1)/3/device/\(TestPush.validToken)",
            ])
        #expect(curl.stdoutText == "200", "\(curl.stderr)")
        #expect(try await Self.terminate(process, stdout).contains("mock-apns stopped: 1 accepted"))

        let lines = try String(contentsOfFile: record, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 1)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data((lines.first ?? "").utf8)) as? [String: Any])
        #expect(object["apns_id"] as? String == apnsID)
        #expect(object["token"] as? String == TestPush.validToken)
        #expect(object["topic"] as? String == "com.example.cli")
    }
}
