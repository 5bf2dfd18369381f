import Foundation
import SalvoTestSupport
import Testing

/// The example configuration works as shipped: the steps docs/configuration.md gives ("Try the
/// example") are extracted from the Markdown and run as written, in a copy of `config/`, with the
/// built `salvo` first on PATH; their last step is `salvo worker --check-config`.
@Suite struct ShippedExampleTests {
    @Test("config/worker.example.yaml passes --check-config after the documented steps")
    func exampleConfigurationPassesAfterTheDocumentedSteps() async throws {
        let script = try Self.setupScript()
        #expect(script.contains("salvo worker --check-config worker.example.yaml"))

        let directory = try ExternalProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("config")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: RepositoryFiles.path("config/worker.example.yaml"),
            toPath: config.appendingPathComponent("worker.example.yaml").path)

        let salvo = try ExternalProcess.salvoExecutable()
        let path = salvo.deletingLastPathComponent().path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "")
        let result = try await ExternalProcess.run(
            "/bin/bash", ["-euo", "pipefail", "-c", "cd \(directory.path)\n" + script],
            environment: ["PATH": path], timeout: .seconds(120))
        #expect(result.status == 0, "stdout: \(result.stdoutText)\nstderr: \(result.stderr)")
        #expect(result.stdoutText.contains("worker.example.yaml"), "\(result.stdoutText)")

        // Without the steps, the example names files nothing made: the check says which.
        let bare = try ExternalProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: bare) }
        try FileManager.default.copyItem(
            atPath: RepositoryFiles.path("config/worker.example.yaml"),
            toPath: bare.appendingPathComponent("worker.example.yaml").path)
        let unprepared = try await ExternalProcess.run(
            salvo, ["worker", "--check-config", bare.appendingPathComponent("worker.example.yaml").path],
            environment: ["SALVO_CHAT_P12_PASSWORD": "any"])
        #expect(unprepared.status != 0)
        #expect(
            ["keys/AuthKey_ABCDE12345.p8", "certs/chat.p12", "tls/ca.pem"].contains { unprepared.stderr.contains($0) },
            "\(unprepared.stderr)")
    }

    /// The shell block between the `example-setup` markers of docs/configuration.md.
    static func setupScript() throws -> String {
        let markdown = try RepositoryFiles.text("docs/configuration.md")
        guard let begin = markdown.range(of: "<!-- example-setup: begin -->"),
            let end = markdown.range(of: "<!-- example-setup: end -->", range: begin.upperBound..<markdown.endIndex)
        else {
            throw TestFailure("docs/configuration.md has no example-setup block")
        }
        let block = markdown[begin.upperBound..<end.lowerBound]
        let lines = block.split(separator: "\n", omittingEmptySubsequences: false)
        guard let open = lines.firstIndex(where: { $0.hasPrefix("```sh") }),
            let close = lines[(open + 1)...].firstIndex(where: { $0.hasPrefix("```") })
        else {
            throw TestFailure("the example-setup block of docs/configuration.md holds no ```sh fence")
        }
        return lines[(open + 1)..<close].joined(separator: "\n")
    }
}
