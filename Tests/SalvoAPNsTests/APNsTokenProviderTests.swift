import Crypto
import Foundation
import SalvoAPNs
import SalvoTestSupport
import Testing

@Suite struct APNsTokenProviderTests {
    static let startUnixTime: Int64 = 1_700_000_000

    static func credential(keyID: String = "ABCDE12345", teamID: String = "TEAM123456") throws -> APNsTokenCredential {
        try APNsTokenCredential(keyID: keyID, teamID: teamID, privateKey: P256.Signing.PrivateKey())
    }

    /// A provider whose wall time follows the manual clock, with a fixed jitter.
    static func provider(clock: ManualClock, jitter: Double = 0.5) throws -> APNsTokenProvider<ManualClock> {
        try APNsTokenProvider(
            credential: credential(),
            clock: clock,
            unixTime: { startUnixTime + clock.now.offset.components.seconds },
            jitter: { jitter }
        )
    }

    @Test func sharesOneSignedTokenAcrossConnections() throws {
        let clock = ManualClock()
        let provider = try Self.provider(clock: clock)
        let first = try provider.authorization(for: .next())
        let second = try provider.authorization(for: .next())
        #expect(first == second)
        #expect(first.issuedAt == Self.startUnixTime)
        #expect(String(decoding: first.headerValue, as: UTF8.self).hasPrefix("bearer ey"))
    }

    @Test func refreshesWithinTheDefaultWindowWithJitter() throws {
        // Default window 30…35 minutes; jitter 0.5 puts the refresh at 32.5 minutes.
        let clock = ManualClock()
        let provider = try Self.provider(clock: clock, jitter: 0.5)
        let connection = APNsConnectionID.next()
        let first = try provider.authorization(for: connection)
        clock.advance(by: .seconds(32 * 60 + 29))
        #expect(try provider.authorization(for: connection) == first)
        clock.advance(by: .seconds(1))
        let second = try provider.authorization(for: connection)
        #expect(second.generation == first.generation + 1)
        #expect(second.issuedAt == Self.startUnixTime + 32 * 60 + 30)
        #expect(second.jwt != first.jwt)
    }

    @Test func refusesPoliciesOutsideApplesLimits() throws {
        let clock = ManualClock()
        for window in [Duration.seconds(10 * 60) ... .seconds(30 * 60), .seconds(30 * 60) ... .seconds(45 * 60)] {
            let error = #expect(throws: APNsError.self) {
                try APNsTokenProvider(
                    credential: Self.credential(), policy: APNsTokenRefreshPolicy(refreshAge: window), clock: clock)
            }
            #expect(error?.code == .invalidConfiguration)
        }
    }

    @Test func expiredProviderTokenRefreshesOnceAndRespectsTheConnectionFloor() throws {
        let clock = ManualClock()
        let provider = try Self.provider(clock: clock)
        let old = APNsConnectionID.next()
        let first = try provider.authorization(for: old)
        clock.advance(by: .seconds(21 * 60))
        #expect(provider.expiredProviderTokenReceived(on: old, token: first) == .replayOnSameConnection)
        let refreshed = try provider.authorization(for: old)
        #expect(refreshed.generation == first.generation + 1)
        // The connection that just switched cannot take another token for 20 minutes.
        clock.advance(by: .seconds(60))
        #expect(provider.expiredProviderTokenReceived(on: old, token: refreshed) == .replayOnNewConnection)
        #expect(try provider.authorization(for: old) == refreshed)
        #expect(try provider.authorization(for: .next()) == refreshed)
    }

    @Test func closedConnectionsAreForgotten() throws {
        let provider = try Self.provider(clock: ManualClock())
        let connections = (0..<3).map { _ in APNsConnectionID.next() }
        for connection in connections { _ = try provider.authorization(for: connection) }
        #expect(provider.trackedConnections == 3)
        for connection in connections { provider.connectionClosed(connection) }
        #expect(provider.trackedConnections == 0)
    }

    @Test func concurrentCallersGetOneToken() async throws {
        let provider = try Self.provider(clock: ManualClock())
        let tokens = try await withThrowingTaskGroup(of: APNsAuthorization.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    let connection = APNsConnectionID.next()
                    var last: APNsAuthorization?
                    for _ in 0..<200 { last = try provider.authorization(for: connection) }
                    return last!
                }
            }
            return try await group.reduce(into: Set<APNsAuthorization>()) { $0.insert($1) }
        }
        #expect(tokens.count == 1)
        #expect(tokens.first?.generation == 1)
    }

    @Test func registryKeepsOneProviderPerTeamAndKey() throws {
        let registry = try APNsTokenProviderRegistry(clock: ManualClock())
        let key = P256.Signing.PrivateKey()
        let production = try registry.provider(
            for: APNsTokenCredential(keyID: "ABCDE12345", teamID: "TEAM123456", privateKey: key))
        let sandbox = try registry.provider(
            for: APNsTokenCredential(keyID: "ABCDE12345", teamID: "TEAM123456", privateKey: key))
        let otherKey = try registry.provider(for: Self.credential(keyID: "ZZZZZ99999"))
        #expect(production === sandbox)
        #expect(production !== otherKey)
        #expect(registry.count == 2)
        #expect(try production.authorization(for: .next()) == sandbox.authorization(for: .next()))
    }

    @Test func manualClockWakesSleepersWhenAdvanced() async throws {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(60)) }
        defer { sleeper.cancel() }
        // Bounded wait for the sleeper to register.
        for _ in 0..<1000 where clock.sleeperCount == 0 {
            try await Task.sleep(for: .milliseconds(2))
        }
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(59))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(1))
        #expect(clock.sleeperCount == 0)
        try await sleeper.value
    }
}
