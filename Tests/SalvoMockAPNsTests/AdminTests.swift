import Foundation
import NIOCore
import SalvoAPNs
import SalvoHTTP2
import SalvoMockAPNs
import SalvoTestSupport
import Testing

@Suite("Admin listener: /stats, /metrics and controls, read with curl")
struct AdminTests {
    private func configure(_ configuration: inout MockAPNsServer.Configuration) {
        configuration.adminHost = "127.0.0.1"
        configuration.adminPort = 0
        configuration.scenario.tokens = MockTokenFate(unregistered: 1)
        configuration.scenario.name = "all-dead"
    }

    private func curl(_ arguments: [String]) async throws -> ExternalProcess.Result {
        try await ExternalProcess.run("/usr/bin/curl", ["-sS", "--max-time", "10"] + arguments)
    }

    @Test("/stats and /metrics report what the clients saw")
    func statsAndMetrics() async throws {
        try await MockFixture.withServer(self.configure) { server, addresses in
            let admin = "http://\(try #require(addresses.adminEndpoint))"
            let client = try await TestAPNsClient.connect(port: addresses.port, tls: nil)
            _ = await client.sendAll(
                (0..<4).map { _ in TestPush().request } + [TestPush().with("apns-topic", nil).request])
            await client.close()

            let statsOutput = try await self.curl(["\(admin)/stats"])
            #expect(statsOutput.status == 0, "\(statsOutput.stderr)")
            let stats = try JSONDecoder().decode(MockAPNsStats.self, from: Data(statsOutput.stdoutText.utf8))
            #expect(stats.scenario == "all-dead")
            #expect(stats.rejected == ["Unregistered": 4, "MissingTopic": 1])
            #expect(stats.streamsTotal == 5)
            #expect(stats.connectionsTotal == 1)

            let metrics = try await self.curl(["\(admin)/metrics"]).stdoutText
            #expect(metrics.contains(#"salvo_mock_apns_rejected_total{reason="Unregistered"} 4"#))
            #expect(metrics.contains("salvo_mock_apns_requests_total 5"))
            #expect(metrics.contains("# TYPE salvo_mock_apns_accepted_total counter"))
            // A second scrape does not double count.
            #expect(try await self.curl(["\(admin)/metrics"]).stdoutText.contains("salvo_mock_apns_requests_total 5"))
            #expect(server.stats().rejectedTotal == 5)
        }
    }

    @Test("PUT /scenario replaces the scenario; a bad one is refused with the reason")
    func scenarioControl() async throws {
        try await MockFixture.withServer(self.configure) { server, addresses in
            let admin = "http://\(try #require(addresses.adminEndpoint))"
            let put = try await self.curl(["-X", "PUT", "--data-binary", "name: healthy\n", "\(admin)/scenario"])
            #expect(put.status == 0)
            #expect(server.scenario.name == "healthy")
            let client = try await TestAPNsClient.connect(port: addresses.port, tls: nil)
            #expect(try await client.send(TestPush().request).status == 200)

            let bad = try await self.curl([
                "-X", "PUT", "-w", "%{http_code}", "--data-binary", "tokens: {unregistered: 2}", "\(admin)/scenario",
            ])
            #expect(bad.stdoutText.hasSuffix("400"))
            #expect(bad.stdoutText.contains("tokens.unregistered"))
            #expect(server.scenario.name == "healthy")

            let goAway = try await self.curl(["-X", "POST", "\(admin)/goaway"])
            #expect(goAway.stdoutText == "done\n")
            #expect(await eventually { client.events.goAways.count == 1 })
            await client.close()

            let missing = try await self.curl(["-w", "%{http_code}", "-o", "/dev/null", "\(admin)/nothing"])
            #expect(missing.stdoutText == "404")
        }
    }
}
