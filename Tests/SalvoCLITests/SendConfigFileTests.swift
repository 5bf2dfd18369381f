import Foundation
import SalvoTestSupport
import Testing

/// `salvo send --config FILE` reads YAML, as `salvo worker --config` does (JSON, being YAML, still
/// loads).
@Suite struct SendConfigFileTests {
    @Test("send --config takes YAML and JSON alike; its settings reach the command; a malformed file exits 78")
    func sendConfigIsYAML() async throws {
        let directory = try ExternalProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let missingKey = directory.appendingPathComponent("keys/AuthKey_ABCDE12345.p8").path
        let token = ["--device-token", String(repeating: "ab", count: 32), "--apns-topic", "com.example.app"]
        let files = [
            "send.yaml": "key_file: \(missingKey)\nteam_id: TEAM123456\nenvironment: sandbox\n",
            "send.json": #"{"key_file": "\#(missingKey)", "team_id": "TEAM123456", "environment": "sandbox"}"#,
        ]
        for (name, text) in files.sorted(by: { $0.key < $1.key }) {
            let file = directory.appendingPathComponent(name)
            try text.write(to: file, atomically: true, encoding: .utf8)
            let run = try await CommandRunner.salvo(["send", "--config", file.path] + token)
            // The key file named in the file is what the command then fails to read.
            #expect(run.status == 78, "\(name): \(run.status) \(run.stderr)")
            #expect(run.stderr.contains(missingKey), "\(name): \(run.stderr)")
        }
        let malformed = directory.appendingPathComponent("bad.yaml")
        try "key_file: [unclosed\n".write(to: malformed, atomically: true, encoding: .utf8)
        let run = try await CommandRunner.salvo(["send", "--config", malformed.path] + token)
        #expect(run.status == 78, "\(run.stderr)")
        #expect(run.stderr.contains("not the YAML send expects"), "\(run.stderr)")
    }
}
