import NIOCore
import NIOPosix
import SalvoTestSupport
import Testing

@testable import SalvoAPNs

/// The pool against real HTTP/2 servers over loopback, with faults played mid-run.
@Suite("APNsConnectionPool over loopback")
struct APNsPoolLiveTests {
    /// Sends `count` requests (request `i` to token `i`) in batches and returns every outcome.
    private func sendAll(
        _ count: Int, through pool: APNsConnectionPool, batch: Int = 250
    ) async throws -> [Int: APNsOutcome] {
        let tally = OutcomeTally()
        var start = 0
        while start < count {
            let end = min(start + batch, count)
            let offset = start
            await pool.send((start..<end).map { Live.request($0) }) { tally.record(offset + $0, $1) }
            start = end
        }
        return try await tally.waitForAll(count)
    }

    @Test("10,000 requests over 2 TLS connections to nghttpd, each answered with its own status")
    func tenThousand() async throws {
        let pki = try TestPKI()
        defer { pki.remove() }
        // Every third token has no file: nghttpd answers 404 for it.
        let known = (0..<10_000).filter { $0 % 3 != 0 }
        let server = try NGHTTPDServer(pki: pki, tokens: known.map(Live.token))
        defer { server.stop() }
        let pool = try APNsConnectionPool(
            credential: .token(Live.tokenCredential().credential), environment: Live.environment(port: server.port),
            configuration: Live.poolConfiguration(transport: pki.transport), eventLoop: Live.group.next())
        try await Live.withPool(pool) { pool in
            let outcomes = try await self.sendAll(10_000, through: pool)
            var mismatches = 0
            for (index, outcome) in outcomes {
                let expected = index % 3 == 0 ? 404 : 200
                let status = outcome.isAccepted ? 200 : outcome.rejection?.status
                if status != expected { mismatches += 1 }
            }
            #expect(outcomes.count == 10_000)
            #expect(mismatches == 0)
            let snapshot = await pool.snapshot()
            #expect(snapshot.connections.count == 2)
            // nghttpd's -m 100: the pool never asked for more.
            #expect(snapshot.connections.allSatisfy { $0.maxConcurrentStreams == 100 })
        }
    }

    @Test("SETTINGS lowering MAX_CONCURRENT_STREAMS to 1 mid-run: the pool follows, nothing is lost")
    func settingsLowered() async throws {
        var script = ScriptedAPNsServer.Script()
        script.fault = .lowerMaxConcurrentStreams(to: 1)
        script.faultAfter = 200
        try await Live.withScriptedServer(script, tls: nil) { server in
            let pool = try APNsConnectionPool(
                credential: .token(Live.tokenCredential().credential), environment: Live.environment(port: server.port),
                configuration: Live.poolConfiguration(transport: .plaintext, connections: 1),
                eventLoop: Live.group.next())
            try await Live.withPool(pool) { pool in
                let outcomes = try await self.sendAll(1_000, through: pool)
                #expect(outcomes.values.allSatisfy { $0.isAccepted })
                let snapshot = await pool.snapshot()
                #expect(snapshot.connections.map(\.maxConcurrentStreams) == [1])
                let stats = server.snapshot
                #expect(stats.requestsAfterLowering > 100, "most of the run must happen under the lowered limit")
                #expect(stats.maxOpenStreamsAfterLowering == 1)
                #expect(stats.answered == 1_000)
            }
        }
    }

    @Test("GOAWAY mid-run: streams above the last stream id are replayed on a new connection, each answered once")
    func goAwayReplay() async throws {
        var script = ScriptedAPNsServer.Script()
        script.fault = .goAway
        script.faultAfter = 300
        try await Live.withScriptedServer(script, tls: nil) { server in
            let pool = try APNsConnectionPool(
                credential: .token(Live.tokenCredential().credential), environment: Live.environment(port: server.port),
                configuration: Live.poolConfiguration(transport: .plaintext, connections: 1),
                eventLoop: Live.group.next())
            try await Live.withPool(pool) { pool in
                let outcomes = try await self.sendAll(2_000, through: pool, batch: 500)
                #expect(outcomes.count == 2_000)
                #expect(outcomes.values.allSatisfy { $0.isAccepted })
                let stats = server.snapshot
                #expect(stats.ignoredAboveGoAway > 0, "the GOAWAY must have cut off streams in flight")
                #expect(stats.answered == 2_000, "every notification answered exactly once")
                #expect(stats.connections >= 2)
            }
        }
    }

    @Test("the server closing the socket: unsent requests are replayed, sent ones fail as connectionLost")
    func serverCloses() async throws {
        var script = ScriptedAPNsServer.Script()
        script.fault = .closeConnection
        script.faultAfter = 300
        try await Live.withScriptedServer(script, tls: nil) { server in
            let pool = try APNsConnectionPool(
                credential: .token(Live.tokenCredential().credential), environment: Live.environment(port: server.port),
                configuration: Live.poolConfiguration(transport: .plaintext, connections: 1),
                eventLoop: Live.group.next())
            try await Live.withPool(pool) { pool in
                let outcomes = try await self.sendAll(2_000, through: pool, batch: 500)
                let accepted = outcomes.values.filter(\.isAccepted).count
                let lost = outcomes.values.filter { $0.error?.code == .connectionLost }.count
                #expect(outcomes.count == 2_000)
                #expect(accepted + lost == 2_000)
                #expect(lost >= 1, "at least the request that triggered the close was lost")
                #expect(server.snapshot.connections >= 2, "the pool reconnected")
                // The pool serves on after the reconnect.
                #expect(await pool.send(Live.request(99_999)).isAccepted)
            }
        }
    }

    @Test("APNsClient: one pool per credential and environment, shut down together")
    func client() async throws {
        try await Live.withScriptedServer(.init(), tls: nil) { server in
            let client = try APNsClient(
                configuration: Live.poolConfiguration(transport: .plaintext, connections: 1), eventLoopGroup: Live.group
            )
            let credential = APNsCredential.token(try Live.tokenCredential().credential)
            let environment = Live.environment(port: server.port)
            #expect(await client.send(Live.request(1), credential: credential, environment: environment).isAccepted)
            let pool = try client.pool(for: credential, environment: environment)
            #expect(try client.pool(for: credential, environment: environment) === pool)
            await client.shutdown()
            #expect(
                await client.send(Live.request(2), credential: credential, environment: environment).error?.code
                    == .notSent)
        }
    }
}
