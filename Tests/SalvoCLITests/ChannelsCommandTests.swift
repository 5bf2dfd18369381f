import Foundation
import SalvoTestSupport
import Testing

/// `salvo channels` and `salvo send --channel-id` against the real `salvo mock-apns` child over TLS
/// with a provider token: the worker's configuration file names the app, and the mock's record
/// names the channel and the payload's SHA-256.
@Suite("salvo channels and salvo send --channel-id against salvo mock-apns", .serialized)
struct ChannelsCommandTests {
    static func port(_ line: String) throws -> String {
        guard let colon = line.lastIndex(of: ":") else { throw TestFailure("no port in \(line)") }
        return String(line[line.index(after: colon)...].prefix { $0.isNumber })
    }

    static func fields(_ result: ExternalProcess.Result) -> [String: String] {
        var fields: [String: String] = [:]
        for line in result.stdoutText.split(separator: "\n") {
            guard let separator = line.range(of: ": ") else { continue }
            fields[String(line[..<separator.lowerBound])] = String(line[separator.upperBound...])
        }
        return fields
    }

    @Test("create, read, list, broadcast, delete; a refusal exits 1 with its reason; the record names the channel")
    func lifecycle() async throws {
        let directory = try ExternalProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let tls = directory.appendingPathComponent("tls").path
        #expect(
            try await CommandRunner.salvo(["mock-apns", "--generate-tls", tls, "--bundle-id", "com.example.live"])
                .status
                == 0)
        let key = "\(tls)/AuthKey_MOCKKEY001.p8"
        let record = directory.appendingPathComponent("record.ndjson").path
        let mock = try BackgroundProcess.salvo(
            "mock-apns",
            [
                "mock-apns", "--listen", "127.0.0.1:0", "--admin", "off", "--broadcast-listen", "127.0.0.1:0",
                "--tls-cert", "\(tls)/server.pem", "--tls-key", "\(tls)/server-key.pem", "--token-key",
                "MOCKKEY001:MOCKTEAM01:\(key)",
                "--record", record,
            ])
        let apnsPort = try Self.port(try await mock.waitForOutput(containing: "mock-apns listening on"))
        let managementPort = try Self.port(try await mock.waitForOutput(containing: "channel management on"))
        let config = directory.appendingPathComponent("worker.yaml")
        try """
        kafka:
          brokers: ["127.0.0.1:9"]
        group_id: salvo-channels-test
        topics: {jobs: j, priority: p, retry: r, feedback: f, dead_letter: d}
        apps:
          live:
            bundle_id: com.example.live
            credential:
              token: {key_file: \(key), key_id: MOCKKEY001, team_id: MOCKTEAM01}
            environments:
              - {host: 127.0.0.1, port: \(apnsPort), behaves_as: production, ca_file: \(tls)/ca.pem, tls_server_name: localhost}
        """.write(to: config, atomically: true, encoding: .utf8)
        let managed = ["--worker-config", config.path, "--app", "live", "--port", managementPort]

        let created = try await CommandRunner.salvo(
            ["channels", "create"] + managed + ["--storage-policy", "most-recent"])
        #expect(created.status == 0, "\(created.stderr)")
        let channel = try #require(Self.fields(created)["apns-channel-id"])
        let read = try await CommandRunner.salvo(["channels", "read"] + managed + ["--channel-id", channel])
        #expect(Self.fields(read)["message-storage-policy"] == "1")
        let list = try await CommandRunner.salvo(["channels", "list"] + managed + ["--json"])
        let listed = try JSONSerialization.jsonObject(with: Data(list.stdout)) as? [String: String]
        #expect(listed?["channels"] == channel && listed?["count"] == "1")

        let payload = #"{"aps":{"timestamp":1767225600,"event":"update","content-state":{"score":"3-2"}}}"#
        let send = [
            "send", "--channel-id", channel, "--apns-topic", "com.example.live", "--key-file", key, "--team-id",
            "MOCKTEAM01",
            "--host", "127.0.0.1", "--port", apnsPort, "--ca-file", "\(tls)/ca.pem", "--payload", payload,
        ]
        let sent = try await CommandRunner.salvo(send + ["--expiration", "1900000000"])
        #expect(sent.status == 0, "\(sent.stdoutText) \(sent.stderr)")
        #expect(Self.fields(sent)["apns-unique-id"] != nil)

        let deleted = try await CommandRunner.salvo(["channels", "delete"] + managed + ["--channel-id", channel])
        #expect(deleted.status == 0 && Self.fields(deleted)["status"] == "204")
        let gone = try await CommandRunner.salvo(send)
        #expect(gone.status == 1)
        #expect(Self.fields(gone)["reason"] == "ChannelNotRegistered")
        let usage = try await CommandRunner.salvo(["channels", "read"] + managed + ["--channel-id", "not base64"])
        #expect(usage.status == 64)

        await mock.stop()
        let lines = try String(contentsOfFile: record, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 1)
        let line =
            try JSONSerialization.jsonObject(with: Data(lines.first.map { Array($0.utf8) } ?? [])) as? [String: Any]
        #expect(line?["channel_id"] as? String == channel)
        let digest = try await ExternalProcess.run(
            URL(fileURLWithPath: "/usr/bin/sh"), ["-c", "printf '%s' '\(payload)' | sha256sum"], timeout: .seconds(10))
        #expect(line?["payload_sha256"] as? String == String(digest.stdoutText.prefix(64)))
    }
}
