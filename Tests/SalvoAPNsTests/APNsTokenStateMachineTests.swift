import SalvoTestSupport
import Testing

@testable import SalvoAPNs

@Suite struct APNsTokenStateMachineTests {
    typealias Machine = APNsTokenStateMachine<ManualClock>
    typealias Instant = ManualClock.Instant

    static let a = APNsConnectionID(rawValue: 1)
    static let b = APNsConnectionID(rawValue: 2)
    static let policy = APNsTokenRefreshPolicy(refreshAge: .seconds(30 * 60) ... .seconds(40 * 60))

    static func at(minutes: Double) -> Instant {
        Instant(offset: .milliseconds(Int64(minutes * 60_000)))
    }

    /// Requests a token for `connection`, signing when asked, and returns the token used.
    static func request(
        _ machine: inout Machine, _ connection: APNsConnectionID, minutes: Double, jitter: Double = 0
    ) -> APNsAuthorization {
        let now = at(minutes: minutes)
        switch machine.tokenRequested(by: connection, now: now) {
        case .use(let token):
            return token
        case .sign:
            let signed = APNsAuthorization(jwt: "jwt@\(minutes)", issuedAt: Int64(minutes * 60))
            return machine.tokenSigned(signed, by: connection, now: now, jitter: jitter)
        }
    }

    @Test func firstRequestSignsThenEveryoneSharesTheToken() {
        var machine = Machine(policy: Self.policy)
        #expect(machine.tokenRequested(by: Self.a, now: Self.at(minutes: 0)) == .sign)
        let first = machine.tokenSigned(
            APNsAuthorization(jwt: "t1", issuedAt: 0), by: Self.a, now: Self.at(minutes: 0), jitter: 0)
        #expect(first.generation == 1)
        #expect(machine.tokenRequested(by: Self.a, now: Self.at(minutes: 1)) == .use(first))
        #expect(machine.tokenRequested(by: Self.b, now: Self.at(minutes: 2)) == .use(first))
    }

    @Test func refreshesAtTheJitteredAgeInsideTheWindow() {
        // jitter 0.5 in 30…40 minutes: refresh due at 35.
        var machine = Machine(policy: Self.policy)
        let first = Self.request(&machine, Self.a, minutes: 0, jitter: 0.5)
        #expect(machine.tokenRequested(by: Self.a, now: Self.at(minutes: 34.9)) == .use(first))
        #expect(machine.tokenRequested(by: Self.a, now: Self.at(minutes: 35)) == .sign)
        let second = machine.tokenSigned(
            APNsAuthorization(jwt: "t2", issuedAt: 35 * 60), by: Self.a, now: Self.at(minutes: 35), jitter: 1)
        #expect(second.generation == 2)
        #expect(second.jwt == "t2")
        // jitter 1: the next refresh is due at 35 + 40.
        #expect(machine.tokenRequested(by: Self.a, now: Self.at(minutes: 74.9)) == .use(second))
        #expect(machine.tokenRequested(by: Self.a, now: Self.at(minutes: 75)) == .sign)
    }

    @Test func neverHandsOutATokenOlderThanAnHour() {
        // Nobody asked for two hours: the next request signs afresh.
        var machine = Machine(policy: Self.policy)
        _ = Self.request(&machine, Self.a, minutes: 0)
        #expect(machine.tokenRequested(by: Self.a, now: Self.at(minutes: 120)) == .sign)
    }

    @Test func onlyOneSignerAtATime() {
        var machine = Machine(policy: Self.policy)
        let first = Self.request(&machine, Self.a, minutes: 0)
        #expect(machine.tokenRequested(by: Self.a, now: Self.at(minutes: 31)) == .sign)
        // While A signs, B keeps the current token rather than signing a second one.
        #expect(machine.tokenRequested(by: Self.b, now: Self.at(minutes: 31)) == .use(first))
        machine.signingFailed()
        #expect(machine.tokenRequested(by: Self.b, now: Self.at(minutes: 31)) == .sign)
    }

    @Test func startupRaceKeepsTheFirstSignedToken() {
        var machine = Machine(policy: Self.policy)
        let now = Self.at(minutes: 0)
        #expect(machine.tokenRequested(by: Self.a, now: now) == .sign)
        #expect(machine.tokenRequested(by: Self.b, now: now) == .sign)
        let kept = machine.tokenSigned(APNsAuthorization(jwt: "a", issuedAt: 0), by: Self.a, now: now, jitter: 0)
        let forB = machine.tokenSigned(APNsAuthorization(jwt: "b", issuedAt: 0), by: Self.b, now: now, jitter: 0)
        #expect(forB == kept)
        #expect(kept.jwt == "a" && kept.generation == 1)
    }

    @Test func aConnectionKeepsItsTokenFor20Minutes() {
        var machine = Machine(policy: Self.policy)
        let first = Self.request(&machine, Self.a, minutes: 0)
        // B picks up the first token late, at minute 29.
        #expect(Self.request(&machine, Self.b, minutes: 29) == first)
        // A triggers the refresh at minute 30.
        let second = Self.request(&machine, Self.a, minutes: 30)
        #expect(second.generation == 2)
        // B may not switch before minute 49, even though a newer token exists.
        #expect(Self.request(&machine, Self.b, minutes: 40) == first)
        #expect(Self.request(&machine, Self.b, minutes: 48.9) == first)
        #expect(Self.request(&machine, Self.b, minutes: 49) == second)
        // A new connection gets the newest token at once.
        #expect(Self.request(&machine, APNsConnectionID(rawValue: 3), minutes: 31) == second)
    }

    @Test func tokensAreSignedAtMostEvery20MinutesAndInUseAtMostAnHour() {
        // Eight connections joining at staggered minutes (so some pick a token up just before it
        // is replaced), each asking every minute for five hours, with changing jitter.
        var machine = Machine(policy: Self.policy)
        var signedAt: [Double] = []
        var lastSwitch: [Int: (generation: UInt64, minute: Double)] = [:]
        for minute in stride(from: 0.0, through: 300, by: 1) {
            for id in 1...8 where minute >= Double(id * 5 - 3) {
                let now = Self.at(minutes: minute)
                let connection = APNsConnectionID(rawValue: UInt64(id))
                let token: APNsAuthorization
                switch machine.tokenRequested(by: connection, now: now) {
                case .use(let used):
                    token = used
                case .sign:
                    signedAt.append(minute)
                    let jitter = minute.truncatingRemainder(dividingBy: 7) / 7
                    token = machine.tokenSigned(
                        APNsAuthorization(jwt: "\(minute)", issuedAt: Int64(minute * 60)), by: connection, now: now,
                        jitter: jitter)
                }
                #expect(minute * 60 - Double(token.issuedAt) < 60 * 60, "token too old at \(minute)")
                if let last = lastSwitch[id], last.generation != token.generation {
                    #expect(minute - last.minute >= 20, "connection \(id) switched twice within 20 minutes")
                }
                if lastSwitch[id]?.generation != token.generation {
                    lastSwitch[id] = (token.generation, minute)
                }
            }
        }
        #expect(signedAt.count >= 7)
        for (earlier, later) in zip(signedAt, signedAt.dropFirst()) {
            #expect(later - earlier >= 20)
            // Due at 30…40 minutes; requests arrive once a minute.
            #expect(later - earlier <= 41)
        }
    }

    @Test func expiredProviderTokenForcesOneRefresh() {
        var machine = Machine(policy: Self.policy)
        let first = Self.request(&machine, Self.a, minutes: 0)
        // Reported at minute 25 by A, which has held its token for 25 minutes: replay on A.
        #expect(
            machine.expiredTokenReported(by: Self.a, generation: first.generation, now: Self.at(minutes: 25))
                == .replayOnSameConnection)
        #expect(
            machine.expiredTokenReported(by: Self.b, generation: first.generation, now: Self.at(minutes: 25))
                == .replayOnSameConnection)
        let refreshed = Self.request(&machine, Self.a, minutes: 25)
        #expect(refreshed.generation == 2)
        // A second report about the old token forces nothing more.
        #expect(
            machine.expiredTokenReported(by: Self.b, generation: first.generation, now: Self.at(minutes: 26))
                == .replayOnSameConnection)
        #expect(machine.tokenRequested(by: Self.a, now: Self.at(minutes: 27)) == .use(refreshed))
    }

    @Test func forcedRefreshStillWaitsFor20Minutes() {
        var machine = Machine(policy: Self.policy)
        let first = Self.request(&machine, Self.a, minutes: 0)
        // Reported at minute 5: A switched 5 minutes ago, so replay elsewhere; no new token yet.
        #expect(
            machine.expiredTokenReported(by: Self.a, generation: first.generation, now: Self.at(minutes: 5))
                == .replayOnNewConnection)
        #expect(machine.tokenRequested(by: APNsConnectionID(rawValue: 9), now: Self.at(minutes: 10)) == .use(first))
        // At minute 20 the forced refresh happens, well before the 30-minute refresh age.
        #expect(machine.tokenRequested(by: APNsConnectionID(rawValue: 9), now: Self.at(minutes: 20)) == .sign)
    }

    @Test func closedConnectionsAreForgotten() {
        var machine = Machine(policy: Self.policy)
        _ = Self.request(&machine, Self.a, minutes: 0)
        _ = Self.request(&machine, Self.b, minutes: 0)
        #expect(machine.trackedConnections == 2)
        machine.connectionClosed(Self.a)
        #expect(machine.trackedConnections == 1)
    }
}
