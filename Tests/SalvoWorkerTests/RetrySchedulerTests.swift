import SalvoAPNs
import Testing

@testable import SalvoWorker

@Suite struct RetrySchedulerTests {
    typealias Machine = RetryScheduler.StateMachine<ContinuousClock>
    static let unavailable = RetryReason(kind: .apnsUnavailable, apnsStatus: 503, apnsReason: "ServiceUnavailable")
    static let throttled = RetryReason(kind: .tooManyRequests, apnsStatus: 429, apnsReason: "TooManyRequests")
    /// Holds delays up to two minutes in memory, so the tests below see the mechanics of holding.
    static let holdsTwoMinutes = RetryScheduler.Configuration(maximumHeldDelay: .seconds(120))

    let start = ContinuousClock.now

    @Test func backoffGrowsAndIsCapped() {
        let backoff = RetryBackoff(initialDelay: .milliseconds(500), maximumDelay: .seconds(60))
        #expect(
            (1...9).map { backoff.delay(afterAttempt: $0) }
                == [0.5, 1, 2, 4, 8, 16, 32, 60, 60].map { Duration.seconds($0) })
        #expect(backoff.jitteredDelay(afterAttempt: 3, fraction: 0) == .seconds(1))
        #expect(backoff.jitteredDelay(afterAttempt: 3, fraction: 0.5) == .seconds(1.5))
        #expect(backoff.jitteredDelay(afterAttempt: 3, fraction: 0.999) < .seconds(2))
        #expect(backoff.delay(afterAttempt: 10_000) == .seconds(60))
    }

    @Test func jitterIsUniformAndReproducible() {
        var a = Jitter(seed: 7)
        var b = Jitter(seed: 7)
        let fractions = (0..<10_000).map { _ in a.fraction() }
        #expect(fractions == (0..<10_000).map { _ in b.fraction() })
        #expect(fractions.allSatisfy { $0 >= 0 && $0 < 1 })
        let mean = fractions.reduce(0, +) / Double(fractions.count)
        #expect(abs(mean - 0.5) < 0.02)
    }

    @Test func heldNotificationsComeBackTogetherNeverEarly() throws {
        var machine = try Machine(configuration: Self.holdsTwoMinutes, now: start, jitter: Jitter(seed: 1))
        for n in 0..<50 {
            guard case .held = machine.schedule(Fixtures.notification(n), reason: Self.unavailable, now: start) else {
                Issue.record("expected the notification to be held")
                return
            }
        }
        #expect(machine.heldCount == 50)
        // Attempt 1 backs off 250…500 ms: nothing is due before 250 ms.
        #expect(machine.collectDue(now: start.advanced(by: .milliseconds(249))).isEmpty)
        let deadline = try #require(machine.nextDeadline)
        #expect(deadline >= start.advanced(by: .milliseconds(250)))
        let batches = machine.collectDue(now: start.advanced(by: .milliseconds(500)))
        // 50 due times in a 250 ms span, 100 ms windows: at most 3 batches.
        #expect((1...3).contains(batches.count))
        #expect(batches.map(\.notifications.count).reduce(0, +) == 50)
        #expect(batches.allSatisfy { $0.app == "news" })
        #expect(batches.flatMap(\.notifications).allSatisfy { $0.attempt == 2 && $0.replays == 0 })
        #expect(zip(batches, batches.dropFirst()).allSatisfy { $0.due < $1.due })
        #expect(machine.heldCount == 0)
        #expect(machine.nextDeadline == nil)
    }

    @Test func appsAreBatchedSeparately() throws {
        var machine = try Machine(configuration: .init(batchWindow: .seconds(10)), now: start, jitter: Jitter(seed: 2))
        _ = machine.schedule(Fixtures.notification(1, app: "news"), reason: Self.unavailable, now: start)
        _ = machine.schedule(Fixtures.notification(2, app: "chat"), reason: Self.unavailable, now: start)
        _ = machine.schedule(Fixtures.notification(3, app: "news"), reason: Self.unavailable, now: start)
        let batches = machine.collectDue(now: start.advanced(by: .seconds(10)))
        #expect(batches.map(\.app) == ["chat", "news"])
        #expect(
            batches.map { $0.notifications.map(\.token) } == [
                [Fixtures.token(2)], [Fixtures.token(1), Fixtures.token(3)],
            ])
    }

    @Test func tooManyRequestsWaitsLonger() throws {
        var machine = try Machine(configuration: Self.holdsTwoMinutes, now: start, jitter: Jitter(seed: 3))
        guard case .held(let due, _) = machine.schedule(Fixtures.notification(), reason: Self.throttled, now: start)
        else {
            Issue.record("expected the notification to be held")
            return
        }
        #expect(due >= start.advanced(by: .seconds(5)))
        #expect(due <= start.advanced(by: .seconds(10)))
    }

    @Test func rearmsOnlyWhenTheEarliestDeadlineMovesEarlier() throws {
        var machine = try Machine(configuration: Self.holdsTwoMinutes, now: start, jitter: Jitter(seed: 4))
        let late = machine.schedule(Fixtures.notification(1, attempt: 5), reason: Self.unavailable, now: start)
        let later = machine.schedule(Fixtures.notification(2, attempt: 6), reason: Self.unavailable, now: start)
        let early = machine.schedule(Fixtures.notification(3, attempt: 1), reason: Self.unavailable, now: start)
        guard case .held(_, true) = late, case .held(_, false) = later, case .held(let earlyDue, true) = early else {
            Issue.record("unexpected actions \(late) \(later) \(early)")
            return
        }
        #expect(machine.nextDeadline == earlyDue)
    }

    @Test func handsOffBeyondTheMemoryBound() throws {
        var machine = try Machine(
            configuration: .init(maximumHeldNotifications: 2), now: start, jitter: Jitter(seed: 5))
        _ = machine.schedule(Fixtures.notification(1), reason: Self.unavailable, now: start)
        _ = machine.schedule(Fixtures.notification(2), reason: Self.unavailable, now: start)
        guard
            case .handOff(let batch) = machine.schedule(
                Fixtures.notification(3, attempt: 2), reason: Self.unavailable, now: start)
        else {
            Issue.record("expected a hand-off")
            return
        }
        #expect(batch.notifications.map(\.token) == [Fixtures.token(3)])
        #expect(batch.notifications[0].attempt == 3)
        #expect(batch.due >= start.advanced(by: .milliseconds(500)))
        #expect(machine.heldCount == 2)
    }

    @Test func handsOffLongDelays() throws {
        var machine = try Machine(
            configuration: .init(maximumHeldDelay: .seconds(20)), now: start, jitter: Jitter(seed: 6))
        // Attempt 8 backs off 30…60 s, beyond the 20 s the worker holds.
        guard
            case .handOff(let batch) = machine.schedule(
                Fixtures.notification(attempt: 8), reason: Self.unavailable, now: start)
        else {
            Issue.record("expected a hand-off")
            return
        }
        #expect(batch.due >= start.advanced(by: .seconds(30)))
        #expect(machine.heldCount == 0)
    }

    @Test func holdsRetryTopicRecordsUntilTheirDueTime() throws {
        var machine = try Machine(configuration: Self.holdsTwoMinutes, now: start, jitter: Jitter(seed: 8))
        let notification = Fixtures.notification(attempt: 4)
        let action = machine.hold(notification, until: start.advanced(by: .milliseconds(1_234)), now: start)
        #expect(action == .held(due: start.advanced(by: .milliseconds(1_300)), rearmTimer: true))
        #expect(machine.collectDue(now: start.advanced(by: .milliseconds(1_299))).isEmpty)
        let batches = machine.collectDue(now: start.advanced(by: .milliseconds(1_300)))
        // Held as it is: the attempt count is not increased again.
        #expect(batches.flatMap(\.notifications) == [notification])
        guard case .handOff = machine.hold(notification, until: start.advanced(by: .seconds(600)), now: start) else {
            Issue.record("a record due in 10 minutes goes back to the retry topic")
            return
        }
    }

    @Test func shutdownDrainsEverything() throws {
        var machine = try Machine(configuration: Self.holdsTwoMinutes, now: start, jitter: Jitter(seed: 7))
        for n in 0..<20 {
            _ = machine.schedule(
                Fixtures.notification(n, app: n.isMultiple(of: 2) ? "news" : "chat", attempt: 1 + n % 5),
                reason: Self.unavailable, now: start)
        }
        let drained = machine.drainForShutdown()
        #expect(drained.flatMap(\.notifications).count == 20)
        #expect(Set(drained.flatMap(\.notifications).map(\.token)) == Set((0..<20).map(Fixtures.token)))
        #expect(machine.heldCount == 0)
        #expect(machine.nextDeadline == nil)
        #expect(machine.drainForShutdown().isEmpty)
    }

    @Test func sameSeedSameSchedule() throws {
        func run() throws -> [Machine.ScheduleAction] {
            var machine = try Machine(configuration: Self.holdsTwoMinutes, now: start, jitter: Jitter(seed: 99))
            return (0..<10).map {
                machine.schedule(Fixtures.notification($0, attempt: 1 + $0 % 4), reason: Self.unavailable, now: start)
            }
        }
        #expect(try run() == run())
    }

    @Test func configurationIsValidated() {
        #expect(throws: SalvoWorkerError.self) {
            try Machine(configuration: .init(batchWindow: .zero), now: start)
        }
        #expect(throws: SalvoWorkerError.self) {
            try Machine(
                configuration: .init(backoff: RetryBackoff(initialDelay: .seconds(2), maximumDelay: .seconds(1))),
                now: start)
        }
        #expect(throws: SalvoWorkerError.self) {
            try Machine(
                configuration: .init(
                    tooManyRequests: RetryBackoff(initialDelay: .seconds(1), multiplier: 0.5, maximumDelay: .seconds(9))
                ), now: start)
        }
    }

    @Test func byDefaultARetryDueLaterThanFiveSecondsGoesToTheRetryTopic() throws {
        let start = ContinuousClock.now
        var machine = try Machine(now: start, jitter: Jitter(seed: 12))
        // A 429 waits at least 5 s (half of the 10 s first delay, jittered): not held, so it never
        // holds its job's offset.
        guard case .handOff = machine.schedule(Fixtures.notification(1), reason: Self.throttled, now: start) else {
            Issue.record("a 429 retry should go to the retry topic")
            return
        }
        // A first 5xx backoff (0.25–0.5 s) is held.
        guard case .held = machine.schedule(Fixtures.notification(2), reason: Self.unavailable, now: start) else {
            Issue.record("a short backoff should be held")
            return
        }
        #expect(machine.heldCount == 1)
    }
}
