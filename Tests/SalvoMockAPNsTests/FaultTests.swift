import Foundation
import NIOCore
import SalvoAPNs
import SalvoHTTP2
import SalvoMockAPNs
import Testing

@Suite("Scenario faults over real HTTP/2")
struct FaultTests {
    private func scenario(
        _ change: @escaping (inout MockScenario) -> Void
    ) -> (inout MockAPNsServer.Configuration) -> Void {
        { configuration in change(&configuration.scenario) }
    }

    @Test("latency: a fixed delay holds every answer back at least that long")
    func latency() async throws {
        try await MockFixture.withClient(self.scenario { $0.latency = .fixed(milliseconds: 150) }) { _, client in
            let clock = ContinuousClock()
            let started = clock.now
            let results = await client.sendAll((0..<5).map { _ in TestPush().request })
            #expect(clock.now - started >= .milliseconds(150))
            #expect(results.allSatisfy { (try? $0.get().status) == 200 })
        }
    }

    @Test("Unregistered and BadDeviceToken exactly as MockTokenFate predicts, 410 with the documented timestamp")
    func tokenFates() async throws {
        let fate = MockTokenFate(unregistered: 0.3, badDeviceToken: 0.2)
        try await MockFixture.withClient(self.scenario { $0.tokens = fate }) { server, client in
            let pushes = (0..<200).map { index -> TestPush in
                var push = TestPush()
                push.token = TestPush.token(index * 104_729)
                return push
            }
            let before = Int64(Date().timeIntervalSince1970 * 1000)
            let results = await client.sendAll(pushes.map(\.request))
            let after = Int64(Date().timeIntervalSince1970 * 1000)
            var seen: [MockTokenFate.Outcome: Int] = [:]
            for (push, result) in zip(pushes, results) {
                let response = try result.get()
                let expected = fate.outcome(for: try DeviceToken(hex: push.token))
                seen[expected, default: 0] += 1
                switch expected {
                case .valid:
                    #expect(response.status == 200)
                case .badDeviceToken:
                    #expect(response.status == 400)
                    #expect(response.reason == .badDeviceToken)
                case .unregistered:
                    #expect(response.status == 410)
                    #expect(response.reason == .unregistered)
                    let timestamp = try #require(response.errorBody?.timestampMilliseconds)
                    #expect((before - 86_400_000 - 5...after - 86_400_000 + 5).contains(timestamp))
                }
            }
            #expect(seen.count == 3, "200 tokens hit every outcome")
            let stats = server.stats()
            #expect(stats.rejected("Unregistered") == seen[.unregistered])
            #expect(stats.rejected("BadDeviceToken") == seen[.badDeviceToken])
            #expect(stats.accepted == seen[.valid])
        }
    }

    @Test("per-token rate limit: the third push to one token in the window gets 429 TooManyRequests")
    func rateLimit() async throws {
        let change = self.scenario { $0.rateLimit = MockScenario.RateLimit(requests: 2, perSeconds: 60) }
        try await MockFixture.withClient(change) { _, client in
            #expect(try await client.send(TestPush().request).status == 200)
            #expect(try await client.send(TestPush().request).status == 200)
            let third = try await client.send(TestPush().request)
            #expect(third.status == 429)
            #expect(third.reason == .tooManyRequests)
            var other = TestPush()
            other.token = TestPush.token(1)
            #expect(try await client.send(other.request).status == 200)
        }
    }

    @Test("error rates: 500 InternalServerError and 503 ServiceUnavailable")
    func serverErrors() async throws {
        try await MockFixture.withClient(self.scenario { $0.errors.internalServerError = 1 }) { server, client in
            let response = try await client.send(TestPush().request)
            #expect(response.status == 500)
            #expect(response.reason == .internalServerError)
            try server.setScenario(
                {
                    var scenario = MockScenario()
                    scenario.errors.serviceUnavailable = 1
                    return scenario
                }())
            let unavailable = try await client.send(TestPush().request)
            #expect(unavailable.status == 503)
            #expect(unavailable.reason == .serviceUnavailable)
            try server.setScenario(MockScenario())
            #expect(try await client.send(TestPush().request).status == 200)
        }
    }

    @Test("error rates in between: roughly the configured share, never anything else")
    func partialErrors() async throws {
        let change = self.scenario {
            $0.errors.serviceUnavailable = 0.25
            $0.seed = 11
        }
        try await MockFixture.withClient(change) { _, client in
            let results = await client.sendAll((0..<400).map { _ in TestPush().request })
            let statuses = try results.map { try $0.get().status }
            let unavailable = statuses.filter { $0 == 503 }.count
            #expect(Set(statuses).isSubset(of: [200, 503]))
            #expect((50...150).contains(unavailable), "\(unavailable) of 400")
        }
    }

    @Test("Shutdown: 503 Shutdown, then GOAWAY with Apple's JSON reason; the next connection is fine")
    func shutdown() async throws {
        try await MockFixture.withServer(self.scenario { $0.errors.shutdown = 1 }) { server, addresses in
            let client = try await TestAPNsClient.connect(port: addresses.port, tls: nil)
            let response = try await client.send(TestPush().request)
            #expect(response.status == 503)
            #expect(response.reason == .shutdown)
            #expect(await eventually { !client.events.goAways.isEmpty })
            let goAway = try #require(client.events.goAways.first)
            #expect(goAway.errorCode == .noError)
            #expect(String(buffer: goAway.debugData) == #"{"reason":"Shutdown"}"#)
            await client.close()
            #expect(server.stats().goAwaysSent == 1)

            try server.setScenario(MockScenario())
            let next = try await TestAPNsClient.connect(port: addresses.port, tls: nil)
            #expect(try await next.send(TestPush().request).status == 200)
            await next.close()
        }
    }

    @Test("a Shutdown storm started by an operator answers 503 Shutdown until it ends")
    func storm() async throws {
        try await MockFixture.withServer { server, addresses in
            try server.startShutdownStorm(seconds: 60)
            let client = try await TestAPNsClient.connect(port: addresses.port, tls: nil)
            #expect(try await client.send(TestPush().request).reason == .shutdown)
            await client.close()
            server.endShutdownStorm()
            let later = try await TestAPNsClient.connect(port: addresses.port, tls: nil)
            #expect(try await later.send(TestPush().request).status == 200)
            await later.close()
        }
    }

    @Test("GOAWAY every N streams: the Nth request is answered, then GOAWAY arrives")
    func goAwayEveryStreams() async throws {
        try await MockFixture.withClient(self.scenario { $0.goAway = MockScenario.Periodic(everyStreams: 3) }) {
            server, client async throws in
            for _ in 0..<3 { #expect(try await client.send(TestPush().request).status == 200) }
            #expect(await eventually { client.events.goAways.count == 1 })
            #expect(client.events.goAways.first?.lastStreamID == 5)
            #expect(server.stats().goAwaysSent == 1)
            #expect(await eventually { !client.channel.isActive }, "the connection closes once its streams are done")
            await #expect(throws: (any Error).self) { try await client.send(TestPush().request) }
        }
    }

    @Test("GOAWAY every N seconds, also on an idle connection")
    func goAwayEverySeconds() async throws {
        try await MockFixture.withClient(self.scenario { $0.goAway = MockScenario.Periodic(everySeconds: 0.2) }) {
            server, client in
            #expect(await eventually { client.events.goAways.count == 1 })
            #expect(await eventually { !client.channel.isActive })
            #expect(server.stats().goAwaysSent == 1)
        }
    }

    @Test("connection reset every N streams: the Nth request is lost with the connection")
    func connectionReset() async throws {
        let change = self.scenario { $0.connectionReset = MockScenario.Periodic(everyStreams: 2) }
        try await MockFixture.withClient(change) { server, client async throws in
            #expect(try await client.send(TestPush().request).status == 200)
            await #expect {
                try await client.send(TestPush().request)
            } throws: { error in
                (error as? HTTP2Error)?.code == .connectionLost
            }
            #expect(client.events.goAways.isEmpty, "a reset sends no GOAWAY")
            #expect(await eventually { server.stats().connectionsOpen == 0 })
            let stats = server.stats()
            #expect(stats.connectionResets == 1)
            #expect(stats.unanswered == 1)
            #expect(stats.streamsOpen == 0)
        }
    }

    @Test("stream resets: RST_STREAM(INTERNAL_ERROR) instead of an answer")
    func streamReset() async throws {
        try await MockFixture.withClient(self.scenario { $0.streamResetRate = 1 }) { server, client in
            await #expect {
                try await client.send(TestPush().request)
            } throws: { error in
                (error as? HTTP2Error)?.code == .streamReset && (error as? HTTP2Error)?.http2ErrorCode == .internalError
            }
            #expect(server.stats().streamResets == 1)
        }
    }

    @Test("MAX_CONCURRENT_STREAMS drops to 1 after a rejection and is restored after the next success")
    func streamLimitDropAndRestore() async throws {
        let change = self.scenario {
            $0.dropStreamsAfterRejection = true
            $0.maxConcurrentStreams = 500
        }
        try await MockFixture.withClient(change) { server, client in
            #expect(try await client.send(TestPush().request).status == 200)
            #expect(await eventually { client.events.maxConcurrentStreamsSeen == [500] })

            let rejected = try await client.send(TestPush().with("apns-priority", "7").request)
            #expect(rejected.status == 400)
            #expect(await eventually { client.events.maxConcurrentStreamsSeen == [500, 1] })
            #expect(server.stats().streamLimitDrops == 1)

            // With one stream allowed, concurrent requests still all complete, one at a time.
            let results = await client.sendAll((0..<5).map { _ in TestPush().request })
            #expect(results.allSatisfy { (try? $0.get().status) == 200 })
            #expect(await eventually { client.events.maxConcurrentStreamsSeen == [500, 1, 500] })
        }
    }

    @Test("operator controls: GOAWAY now, reset now")
    func controls() async throws {
        try await MockFixture.withServer { server, addresses in
            let first = try await TestAPNsClient.connect(port: addresses.port, tls: nil)
            #expect(try await first.send(TestPush().request).status == 200)
            await server.sendGoAway()
            #expect(await eventually { first.events.goAways.count == 1 })
            #expect(await eventually { !first.channel.isActive }, "an idle connection closes after GOAWAY")

            let second = try await TestAPNsClient.connect(port: addresses.port, tls: nil)
            #expect(try await second.send(TestPush().request).status == 200)
            await server.resetConnections()
            #expect(await eventually { !second.channel.isActive })
            #expect(second.events.goAways.isEmpty)
            let stats = server.stats()
            #expect(stats.goAwaysSent == 1)
            #expect(stats.connectionResets == 1)
            #expect(stats.connectionsTotal == 2)
            await first.close()
            await second.close()
        }
    }
}
