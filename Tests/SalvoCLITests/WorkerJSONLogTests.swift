import Foundation
import SalvoMockAPNs
import SalvoTestSupport
import Testing

/// With `log_format: json`, a log shipper never meets a plain-text line.
@Suite("salvo worker JSON log", .serialized)
struct WorkerJSONLogTests {
    @Test(
        "with log_format json in the file, every stdout and stderr line from start to exit parses as a JSON log object")
    func everyLineIsJSON() async throws {
        try await withWorkerStage(scenarioYAML: WorkerAcceptanceTests.deadTokenScenario) { stage in
            var fixture = CampaignFixture(seed: 24)
            fixture.addPerUser(id: "json", count: 200, app: WorkerStage.app, fate: WorkerAcceptanceTests.deadTokens)
            try await stage.enqueue(fixture.perUserLines, to: stage.priorityTopic)
            // info: the operator's level, with librdkafka's and the engine's start and drain lines.
            let configuration = try stage.writeWorkerConfiguration(logLevel: "info", extra: "log_format: json")
            let worker = try stage.startWorker(configuration)
            _ = try await stage.operationsAddress(of: worker)
            _ = try await stage.waitForDeliveries(of: fixture.expected.delivered, timeout: .seconds(120))
            worker.signal(SIGTERM)
            let status = await worker.waitForExit(timeout: .seconds(40))
            #expect(status == 0, "stderr: \(worker.stderr.suffix(2_000))")

            let stdout = Self.lines(worker.stdout)
            let stderr = Self.lines(worker.stderr)
            #expect(
                stdout.count >= 3 && stderr.count >= 3, "stdout \(stdout.count) lines, stderr \(stderr.count) lines")
            for (stream, lines) in [("stdout", stdout), ("stderr", stderr)] {
                for line in lines {
                    let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                    #expect(object != nil, "\(stream) line is not a JSON object: \(line)")
                    guard let object else { continue }
                    for key in ["ts", "level", "logger", "msg"] {
                        #expect(object[key] is String, "\(stream) line has no \(key): \(line)")
                    }
                }
            }
            let messages = stdout.compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["msg"] as? String
            }
            for announced in ["worker operations on http://", "worker started:", "worker stopped:"] {
                #expect(
                    messages.contains { $0.hasPrefix(announced) }, "no \"\(announced)\" line on stdout: \(messages)")
            }
        }
    }

    @Test("SALVO_LOG_FORMAT=json reports a configuration the worker cannot load as one JSON error line, exit 78")
    func loadErrorInJSON() async throws {
        let directory = try ExternalProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("worker.yaml")
        try "kafka: {brokers: [\"127.0.0.1:9\"]}\napps: {}\nlog_format: json\n".write(
            to: file, atomically: true, encoding: .utf8)
        let worker = try BackgroundProcess.salvo(
            "worker", ["worker", "--config", file.path], environment: ["SALVO_LOG_FORMAT": "json"])
        let status = await worker.waitForExit(timeout: .seconds(30))
        #expect(status == 78)
        let lines = Self.lines(worker.stdout + worker.stderr)
        #expect(lines.count == 1, "\(lines)")
        let object = try #require(
            lines.first.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
        #expect(object["level"] as? String == "error")
        #expect((object["msg"] as? String)?.contains("apps") == true, "\(object)")
        await worker.stop()
    }

    @Test("--log-format text wins over SALVO_LOG_FORMAT=json: the same error as ArgumentParser's plain line")
    func flagWins() async throws {
        let directory = try ExternalProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("worker.yaml")
        try "kafka: {brokers: [\"127.0.0.1:9\"]}\napps: {}\n".write(to: file, atomically: true, encoding: .utf8)
        let worker = try BackgroundProcess.salvo(
            "worker", ["worker", "--config", file.path, "--log-format", "text"],
            environment: ["SALVO_LOG_FORMAT": "json"])
        #expect(await worker.waitForExit(timeout: .seconds(30)) == 78)
        #expect(worker.stderr.hasPrefix("Error: "), "\(worker.stderr)")
        await worker.stop()
    }

    private static func lines(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }
}
