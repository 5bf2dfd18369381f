import Testing

@testable import SalvoAPNs

@Suite("APNsBackoff")
struct APNsBackoffTests {
    @Test("delays double from the initial one up to the maximum")
    func exponential() {
        var backoff = APNsBackoff()
        backoff.initial = .milliseconds(100)
        backoff.maximum = .seconds(1)
        backoff.jitter = 0
        #expect(backoff.delay(attempt: 0, random: 0.7) == .milliseconds(100))
        #expect(backoff.delay(attempt: 1, random: 0.7) == .milliseconds(200))
        #expect(backoff.delay(attempt: 3, random: 0.7) == .milliseconds(800))
        #expect(backoff.delay(attempt: 4, random: 0.7) == .seconds(1))
        #expect(backoff.delay(attempt: 10_000, random: 0.7) == .seconds(1))
    }

    @Test("jitter takes up to its fraction off the delay")
    func jitter() {
        var backoff = APNsBackoff()
        backoff.initial = .seconds(1)
        backoff.jitter = 0.5
        #expect(backoff.delay(attempt: 0, random: 0) == .seconds(1))
        #expect(backoff.delay(attempt: 0, random: 1) == .milliseconds(500))
        #expect(backoff.delay(attempt: 0, random: 0.5) == .milliseconds(750))
    }

    @Test("validation refuses inverted bounds and out-of-range jitter")
    func validation() throws {
        try APNsBackoff().validate()
        var inverted = APNsBackoff()
        inverted.maximum = .milliseconds(1)
        #expect(throws: APNsError.self) { try inverted.validate() }
        var jittery = APNsBackoff()
        jittery.jitter = 1.5
        #expect(throws: APNsError.self) { try jittery.validate() }
    }
}
