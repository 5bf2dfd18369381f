import Foundation
import SalvoTestSupport
import Testing

/// Absurd numbers on the command line are usage errors (exit 64, the flag named), never a trap
/// (a trap ends the process with SIGILL or SIGTRAP: status 132 or 133 in a shell, a signal here).
@Suite struct CommandNumberTests {
    private static let usageError: Int32 = 64
    private static let token = String(repeating: "ab", count: 32)

    @Test(arguments: ["nan", "1e30", "inf", "-1", "0", "1e300", "3601", "abc"])
    func sendTimeout(value: String) async throws {
        let run = try await CommandRunner.salvo(["send", "--device-token", Self.token, "--timeout=\(value)"])
        #expect(run.status == Self.usageError, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("--timeout"), "stderr: \(run.stderr)")
    }

    @Test(arguments: [
        ["--port", "70000"], ["--port=-1"], ["--priority", "7"], ["--expiration=-5"],
        ["--port", "99999999999999999999"],
    ])
    func sendNumbers(flags: [String]) async throws {
        let run = try await CommandRunner.salvo(["send", "--device-token", Self.token] + flags)
        #expect(run.status == Self.usageError, "stderr: \(run.stderr)")
        #expect(run.stderr.contains(flags[0].split(separator: "=")[0]), "stderr: \(run.stderr)")
    }

    @Test(arguments: [["--threads", "99999999"], ["--threads=-1"], ["--listen", "127.0.0.1:70000"]])
    func mockNumbers(flags: [String]) async throws {
        let run = try await CommandRunner.salvo(["mock-apns", "--h2c"] + flags)
        #expect(run.status == Self.usageError, "stderr: \(run.stderr)")
        #expect(run.stderr.contains(flags[0].split(separator: "=")[0]), "stderr: \(run.stderr)")
    }

    @Test(arguments: ["1e300", "nan", "inf", "-1s", "8d", "1e300ms"])
    func durations(value: String) async throws {
        let run = try await CommandRunner.salvo([
            "enqueue", "--brokers", "127.0.0.1:1", "--topic", "t", "--timeout=\(value)",
        ])
        #expect(run.status == Self.usageError, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("--timeout"), "stderr: \(run.stderr)")
    }

    /// A collapse id HTTP/2 forbids is refused before any connection: the port is closed, and
    /// the answer is a usage error, not "no answer".
    @Test func sendRefusesAForbiddenHeaderValueBeforeConnecting() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("salvo-send-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let generated = try await CommandRunner.salvo(["mock-apns", "--generate-tls", directory.path])
        #expect(generated.status == 0, "stderr: \(generated.stderr)")
        let port = try ClosedPort.find()
        let run = try await CommandRunner.salvo([
            "send", "--device-token", Self.token, "--key-file",
            directory.appendingPathComponent("AuthKey_MOCKKEY001.p8").path,
            "--team-id", "MOCKTEAM01", "--apns-topic", "com.example.salvo", "--collapse-id", "abc ", "--h2c", "--host",
            "127.0.0.1",
            "--port", "\(port)",
        ])
        #expect(run.status == Self.usageError, "stdout: \(run.stdoutText) stderr: \(run.stderr)")
        #expect(run.stderr.contains("collapse id"), "stderr: \(run.stderr)")
    }
}
