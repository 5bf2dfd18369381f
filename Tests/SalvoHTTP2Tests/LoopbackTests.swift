import Foundation
import NIOCore
import NIOPosix
import SalvoHTTP2
import SalvoTestSupport
import Testing

/// Real sockets against Debian's independent HTTP/2 implementations: our client against
/// `nghttpd`, `curl` and `h2load` against our server.
@Suite(.timeLimit(.minutes(1))) struct LoopbackTests {
    static let token = String(repeating: "ab", count: 32)

    @Test func clientCompletesAThousandRequestsAgainstNghttpd() async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("salvo-nghttpd-\(UUID().uuidString)")
        let device = root.appendingPathComponent("3/device")
        try FileManager.default.createDirectory(at: device, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        _ = FileManager.default.createFile(atPath: device.appendingPathComponent(Self.token).path, contents: Data())

        // nghttpd ignores SIGTERM: killAndWait. It listens on port 0; the port is read back.
        let nghttpd = try BackgroundProcess(
            name: "nghttpd", executable: URL(fileURLWithPath: "/usr/sbin/nghttpd"),
            arguments: ["--no-tls", "-a", "127.0.0.1", "-d", root.path, "0"])
        defer { nghttpd.killAndWait() }
        let port = try nghttpd.listeningPort()

        let client = try await LoopbackClient.connect(group: group, port: port)
        let responses = try await client.send(
            count: 1000, authority: "127.0.0.1:\(port)", scheme: "http", path: { _ in "/3/device/\(Self.token)" },
            body: #"{"aps":{"alert":"hi"}}"#)
        #expect(responses.count == 1000)
        #expect(responses.allSatisfy { $0.status == 200 })

        let missing = try await client.send(
            count: 1, authority: "127.0.0.1:\(port)", scheme: "http", path: { _ in "/3/device/missing" }, body: "")
        #expect(missing.first?.status == 404)
        #expect(missing.first?.body != nil)

        let credit = try await client.channel.eventLoop.submit {
            try client.channel.pipeline.syncOperations.handler(type: HTTP2SessionHandler.self).streamCredit
        }.get()
        #expect(credit.maxConcurrentStreams == 100)  // nghttpd's default
        #expect(credit.openStreams == 0)
        await client.close()
    }

    /// One connection per curl run: curl 7.88 fails every request after the first on a reused
    /// prior-knowledge h2c connection (with nghttpd too), so many requests are h2load's job.
    @Test func serverAnswersCurl() async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        let server = try await LoopbackServer.start(group: group)
        var outputs: [String] = []
        for index in 0..<20 {
            let result = try await ExternalProcess.run(
                "/usr/bin/curl",
                [
                    "--http2-prior-knowledge", "--silent", "-H", "apns-topic: com.example.app", "--data",
                    "hello-\(index)",
                    "--write-out", " %{http_code} %{http_version} %header{x-path}", "--output", "-",
                    "http://127.0.0.1:\(server.port)/3/device/\(index)",
                ])
            #expect(result.status == 0)
            outputs.append(result.stdoutText)
        }
        await server.close()
        #expect(outputs == (0..<20).map { "hello-\($0) 200 2 /3/device/\($0)" })
    }

    @Test func serverAnswersH2load() async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        let server = try await LoopbackServer.start(group: group)
        let body = FileManager.default.temporaryDirectory.appendingPathComponent(
            "salvo-h2load-\(UUID().uuidString).json")
        try Data(#"{"aps":{"alert":"hello"}}"#.utf8).write(to: body)
        defer { try? FileManager.default.removeItem(at: body) }
        let result = try await ExternalProcess.run(
            "/usr/bin/h2load",
            [
                "-n", "500", "-c", "2", "-m", "50", "-d", body.path, "-H", "apns-topic: com.example.app",
                "http://127.0.0.1:\(server.port)/3/device/\(Self.token)",
            ])
        await server.close()
        #expect(result.status == 0)
        #expect(
            result.stdoutText.contains("requests: 500 total, 500 started, 500 done, 500 succeeded, 0 failed, 0 errored")
        )
        #expect(result.stdoutText.contains("status codes: 500 2xx"))
    }
}
