import Foundation
import Testing

/// `salvo mock-apns` as an operator runs it: a child process that prints where it listens, serves,
/// and exits 0 on SIGTERM.
@Suite("salvo mock-apns as a subprocess")
struct CommandTests {
    static var salvoBinary: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/debug/salvo").path
    }

    @Test("prints its addresses, answers curl, exits 0 on SIGTERM with its totals")
    func sigterm() async throws {
        let binary = Self.salvoBinary
        try #require(FileManager.default.isExecutableFile(atPath: binary), "build salvo first: swift build --build-tests")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["mock-apns", "--h2c", "--listen", "127.0.0.1:0", "--admin", "127.0.0.1:0", "--log-level", "warning"]
        let stdout = PipeReader()
        process.standardOutput = stdout.pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        stdout.start()
        defer { if process.isRunning { process.terminate() } }

        #expect(await eventually(seconds: 10) { stdout.text.contains("admin on") })
        let printed = stdout.text
        let match = try #require(printed.firstMatch(of: /listening on http:\/\/127\.0\.0\.1:(\d+)/), "\(printed)")
        let port = String(match.1)

        let curl = try await ExternalProcess.run(
            "/usr/bin/curl",
            [
                "-sS", "--max-time", "10", "--http2-prior-knowledge", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST",
                "-H", "apns-topic: com.example.salvo", "--data-binary", #"{"aps":{}}"#,
                "http://127.0.0.1:\(port)/3/device/\(String(repeating: "ab", count: 32))",
            ])
        #expect(curl.stdout == "200")

        process.terminate()
        for _ in 0..<500 where process.isRunning { try await Task.sleep(for: .milliseconds(10)) }
        #expect(!process.isRunning)
        #expect(process.terminationStatus == 0)
        #expect(await stdout.finished().contains("mock-apns stopped: 1 accepted"))
    }
}
