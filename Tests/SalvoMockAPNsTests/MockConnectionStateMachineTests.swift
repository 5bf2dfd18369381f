import SalvoAPNs
import Testing

@testable import SalvoMockAPNs

@Suite("Connection rules: GOAWAY and resets every N streams, the stream-limit drop")
struct MockConnectionStateMachineTests {
    @Test("GOAWAY after the Nth stream, once; later streams are still answered")
    func goAwayEveryStreams() {
        var machine = MockConnectionStateMachine(advertisedMaxConcurrentStreams: 1000)
        #expect(machine.streamReceived(goAwayEvery: 3, resetEvery: nil) == .answer)
        #expect(machine.streamReceived(goAwayEvery: 3, resetEvery: nil) == .answer)
        #expect(machine.streamReceived(goAwayEvery: 3, resetEvery: nil) == .answerThenGoAway)
        #expect(machine.streamReceived(goAwayEvery: 3, resetEvery: nil) == .answer)
        #expect(machine.state == .goingAway)
        let again = machine.goAwayRequested()
        #expect(!again, "GOAWAY is sent once")
    }

    @Test("reset after the Nth stream; a closed connection drops what arrives")
    func resetEveryStreams() {
        var machine = MockConnectionStateMachine(advertisedMaxConcurrentStreams: 1000)
        #expect(machine.streamReceived(goAwayEvery: 1, resetEvery: 2) == .answerThenGoAway)
        #expect(machine.streamReceived(goAwayEvery: 1, resetEvery: 2) == .resetConnection)
        #expect(machine.streamReceived(goAwayEvery: 1, resetEvery: 2) == .drop)
        let resetAgain = machine.resetRequested()
        #expect(!resetAgain)
    }

    @Test("MAX_CONCURRENT_STREAMS drops to 1 after a rejection and comes back after a success")
    func streamLimit() {
        var machine = MockConnectionStateMachine(advertisedMaxConcurrentStreams: 500)
        #expect(machine.answered(accepted: true, dropStreamsAfterRejection: true) == .none)
        #expect(machine.answered(accepted: false, dropStreamsAfterRejection: true) == .lowerMaxConcurrentStreams)
        #expect(machine.answered(accepted: false, dropStreamsAfterRejection: true) == .none)
        #expect(machine.isStreamLimitLowered)
        #expect(machine.answered(accepted: true, dropStreamsAfterRejection: true) == .restoreMaxConcurrentStreams(500))
        #expect(machine.answered(accepted: true, dropStreamsAfterRejection: true) == .none)
        #expect(machine.answered(accepted: false, dropStreamsAfterRejection: false) == .none)
        machine.closed()
        #expect(machine.answered(accepted: false, dropStreamsAfterRejection: true) == .none)
    }
}

@Suite("MockTokenRateLimiter: fixed windows per token, bounded")
struct MockTokenRateLimiterTests {
    let second: Int64 = 1_000_000_000

    @Test("the limit applies per token within a window and resets after it")
    func windows() throws {
        var limiter = MockTokenRateLimiter()
        let limit = MockScenario.RateLimit(requests: 2, perSeconds: 1)
        let a = try DeviceToken(hex: String(repeating: "a", count: 64))
        let b = try DeviceToken(hex: String(repeating: "b", count: 64))
        let admitted = [
            limiter.admit(a, limit: limit, now: 0),
            limiter.admit(a, limit: limit, now: second / 2),
            limiter.admit(a, limit: limit, now: second / 2),
            limiter.admit(b, limit: limit, now: second / 2),
            limiter.admit(a, limit: limit, now: second),
        ]
        #expect(admitted == [true, true, false, true, true])
    }

    @Test("at capacity, expired windows go first")
    func capacity() throws {
        var limiter = MockTokenRateLimiter(capacity: 4)
        let limit = MockScenario.RateLimit(requests: 1, perSeconds: 1)
        for index in 0..<4 {
            let admitted = limiter.admit(
                try DeviceToken(hex: String(repeating: "0", count: 63) + String(index)), limit: limit, now: 0)
            #expect(admitted)
        }
        #expect(limiter.trackedTokens == 4)
        let later = limiter.admit(
            try DeviceToken(hex: String(repeating: "f", count: 64)), limit: limit, now: 2 * second)
        #expect(later)
        #expect(limiter.trackedTokens == 1)
    }
}
