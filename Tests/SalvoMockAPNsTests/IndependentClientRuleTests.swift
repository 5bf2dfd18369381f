import Foundation
import SalvoAPNs
import SalvoMockAPNs
import SalvoTestSupport
import Testing

/// Every request rule of ``ValidationTests`` once more, sent by curl (libcurl + nghttp2) instead
/// of the project's client: the answers must not depend on how a client encodes its headers
/// (curl adds user-agent, accept and content-type, orders fields its own way, and sends an empty
/// body without a DATA frame of its own).
@Suite("Apple's request rules through curl --http2-prior-knowledge")
struct IndependentClientRuleTests {
    /// Runs curl once against `port` with `push`; returns the status and the body's last line.
    static func curl(_ push: TestPush, port: Int) async throws -> (status: Int, body: String) {
        let path = push.path ?? "/3/device/\(push.token)"
        var arguments = [
            "-sS", "--max-time", "10", "--http2-prior-knowledge", "-X", push.method, "-w", "\n%{http_code}",
            "--data-binary", push.body,
        ]
        for (name, value) in push.headers { arguments += ["-H", "\(name): \(value)"] }
        let output = try await ExternalProcess.run("/usr/bin/curl", arguments + ["http://127.0.0.1:\(port)\(path)"])
        #expect(output.status == 0, "curl: \(output.stderr)")
        let lines = output.stdoutText.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().last.map(String.init) ?? "")
    }

    @Test("each broken rule gets Apple's status and JSON reason", arguments: 0..<ValidationTests.cases.count)
    func rule(index: Int) async throws {
        let (name, push, status, reason) = ValidationTests.cases[index]
        try await MockFixture.withServer { server, addresses in
            let answer = try await Self.curl(push, port: addresses.port)
            #expect(answer.status == status, "\(name)")
            #expect(answer.body == #"{"reason":"\#(reason.string)"}"#, "\(name)")
            #expect(server.stats().rejected(reason.string) == 1, "\(name)")
            #expect(server.stats().accepted == 0, "\(name)")
        }
    }

    @Test("h2load over many tokens: the status mix is exactly what MockTokenFate predicts")
    func predictedFates() async throws {
        let fate = MockTokenFate(unregistered: 0.2, badDeviceToken: 0.1)
        let tokens = (0..<400).map { TestPush.token($0 * 7919 + 1) }
        var expected: [Int: Int] = [:]
        for hex in tokens {
            switch fate.outcome(for: try DeviceToken(hex: hex)) {
            case .valid: expected[2, default: 0] += 1
            case .unregistered, .badDeviceToken: expected[4, default: 0] += 1
            }
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mock-fates-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let bodyPath = directory + "/body.json"
        try TestPush.payload.write(toFile: bodyPath, atomically: true, encoding: .utf8)

        try await MockFixture.withServer({ $0.scenario.tokens = fate }) { server, addresses in
            let uris = tokens.map { "http://127.0.0.1:\(addresses.port)/3/device/\($0)" }.joined(separator: "\n")
            let uriPath = directory + "/uris.txt"
            try uris.write(toFile: uriPath, atomically: true, encoding: .utf8)
            let output = try await ExternalProcess.run(
                "/usr/bin/h2load",
                [
                    "-n", "\(tokens.count)", "-c", "1", "-m", "50", "-d", bodyPath, "-i", uriPath,
                    "-H", "apns-topic: \(TestPush.topic)", "-H", "apns-push-type: alert",
                ], timeout: .seconds(60))
            #expect(output.status == 0, "\(output.stderr)")
            let codes = try #require(
                output.stdoutText.firstMatch(of: /status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx/))
            #expect(Int(codes.1) == expected[2, default: 0], "\(output.stdoutText)")
            #expect(Int(codes.3) == expected[4, default: 0], "\(output.stdoutText)")
            #expect(Int(codes.4) == 0)
            let stats = server.stats()
            #expect(stats.accepted == expected[2, default: 0])
            #expect(stats.rejected("Unregistered") + stats.rejected("BadDeviceToken") == expected[4, default: 0])
            #expect(stats.rejected("Unregistered") > 0)
            #expect(stats.rejected("BadDeviceToken") > 0)
        }
    }
}
