import Crypto
import NIOCore
import NIOPosix
import NIOSSL
import SalvoTestSupport
import Synchronization

@testable import SalvoAPNs

/// Shared pieces of the loopback tests: credentials, requests, servers started and stopped on
/// every path.
enum Live {
    static let keyID = "ABCDE12345"
    static let teamID = "TEAM123456"
    static let group = MultiThreadedEventLoopGroup.singleton

    static func tokenCredential() throws -> (credential: APNsTokenCredential, publicKey: [UInt8]) {
        let key = P256.Signing.PrivateKey()
        return (
            try APNsTokenCredential(keyID: Self.keyID, teamID: Self.teamID, privateKey: key),
            Array(key.publicKey.rawRepresentation)
        )
    }

    /// Token number `number` as 64 lowercase hex characters.
    static func token(_ number: Int) -> String {
        let hex = String(number, radix: 16)
        return String(repeating: "0", count: 64 - hex.count) + hex
    }

    static func request(_ number: Int, apnsID: APNsID? = nil) -> APNsRequest {
        try! APNsRequest(
            token: DeviceToken(hex: Self.token(number)), topic: APNsTopic(TestPKI.bundleID), pushType: .alert,
            apnsID: apnsID, payload: ByteBuffer(string: #"{"aps":{"alert":{"title":"Salvo","body":"loopback test"}}}"#))
    }

    static func environment(port: Int) -> APNsEnvironment {
        .custom(host: "127.0.0.1", port: port, behavesAs: .sandbox)
    }

    /// Runs `body` with a started scripted server, closing it afterwards whatever happens.
    static func withScriptedServer<T>(
        _ script: ScriptedAPNsServer.Script,
        tls: NIOSSLContext?,
        group: any EventLoopGroup = Live.group,
        _ body: (ScriptedAPNsServer) async throws -> T
    ) async throws -> T {
        let server = ScriptedAPNsServer(script: script)
        try await server.start(group: group, tls: tls)
        do {
            let result = try await body(server)
            await server.close()
            return result
        } catch {
            await server.close()
            throw error
        }
    }

    /// Runs `body` with an event loop group of its own (timing-sensitive tests must not share
    /// loops with the throughput tests running in parallel), shut down afterwards.
    static func withOwnGroup<T>(_ body: (any EventLoopGroup) async throws -> T) async throws -> T {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            let result = try await body(group)
            try await group.shutdownGracefully()
            return result
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// Runs `body` with a pool, shutting it down afterwards whatever happens.
    static func withPool<T>(
        _ pool: APNsConnectionPool, _ body: (APNsConnectionPool) async throws -> T
    ) async throws -> T {
        do {
            let result = try await body(pool)
            await pool.shutdown()
            return result
        } catch {
            await pool.shutdown()
            throw error
        }
    }

    static func poolConfiguration(
        transport: APNsConnection.Transport, connections: Int = 2
    ) -> APNsConnectionPool.Configuration {
        var configuration = APNsConnectionPool.Configuration()
        configuration.connectionCount = connections
        configuration.connection.transport = transport
        configuration.connection.requestTimeout = .seconds(10)
        configuration.backoff.initial = .milliseconds(20)
        configuration.backoff.maximum = .milliseconds(200)
        return configuration
    }
}

/// Outcomes a pool delivers for one batch, by index, and a bounded wait for all of them.
final class OutcomeTally: Sendable {
    private let outcomes = Mutex<[Int: APNsOutcome]>([:])

    func record(_ index: Int, _ outcome: APNsOutcome) {
        self.outcomes.withLock { $0[index] = outcome }
    }

    /// Waits (at most `timeout`) until `count` outcomes arrived and returns them.
    func waitForAll(_ count: Int, timeout: Duration = .seconds(60)) async throws -> [Int: APNsOutcome] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let outcomes = self.outcomes.withLock { $0 }
            if outcomes.count >= count { return outcomes }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw TestFailure("only \(self.outcomes.withLock { $0.count }) of \(count) outcomes arrived")
    }
}
