import SalvoTestSupport
import Testing

@testable import SalvoWorker

/// The dispatch window as timelines: one pump per event-loop turn, refills in batches of an
/// eighth of the window (or after the refill delay), and the flight limit in force only while
/// per-user work is about.
@Suite struct DispatchWindowTests {
    typealias Window = DispatchWindow<ManualClock.Instant>

    /// Runs one pump that sends as much as the window takes; returns how many went out.
    static func pump(_ window: inout Window, now: ManualClock.Instant, priorityQueued: Bool, waiting: Int = 0) -> Int {
        _ = window.onPumpStarted()
        let limit = window.onPumpPlanned(now: now, priorityQueued: priorityQueued)
        var sent = 0
        while window.hasRoom(waiting: waiting, limit: limit) {
            window.onSent()
            sent += 1
        }
        window.onPumpEnded(sentPriority: priorityQueued, limit: limit, now: now)
        return sent
    }

    @Test func onePumpPerTurnHoweverMuchArrives() {
        var window = Window(size: 80, queueDelayTarget: nil)
        #expect(window.onPumpWanted() == true, "the first arrival schedules a pump")
        #expect(window.onPumpWanted() == false, "the next ones in the same turn do not")
        _ = window.onPumpStarted()
        #expect(window.onPumpWanted() == true, "after the pump, a new one")
    }

    @Test func aFullWindowRefillsOnceABatchIsFreeOrAfterTheRefillDelay() {
        let clock = ManualClock()
        var window = Window(size: 80, queueDelayTarget: nil)
        #expect(window.refillBatch == 10)
        #expect(Self.pump(&window, now: clock.now, priorityQueued: false) == 80)
        window.onAnswer()
        #expect(window.onAnswered(urgent: false, waiting: 0) == .armRefill, "one free slot: the refill waits")
        window.onAnswer()
        #expect(window.onAnswered(urgent: false, waiting: 0) == .none, "the refill task is armed already")
        clock.advance(by: .milliseconds(1))  // the core's refill delay
        #expect(window.onRefillDue() == true, "the delay passed: a pump with what is free")
        #expect(Self.pump(&window, now: clock.now, priorityQueued: false) == 2)
        for _ in 0..<9 { window.onAnswer() }
        #expect(window.onAnswered(urgent: false, waiting: 0) == .armRefill, "9 free: still below a batch")
        window.onAnswer()
        #expect(window.onAnswered(urgent: false, waiting: 0) == .pumpNow, "a batch's worth free: refill at once")
        #expect(window.onPumpStarted() == true, "the pump cancels the armed refill")
        #expect(window.onAnswered(urgent: true, waiting: 0) == .pumpNow, "draining or replays waiting: at once")
    }

    @Test func waitingWorkCountsAgainstTheWindowButNotTheFlightLimit() {
        let clock = ManualClock()
        var window = Window(size: 80, queueDelayTarget: nil)
        #expect(Self.pump(&window, now: clock.now, priorityQueued: false, waiting: 30) == 50)
        #expect(window.freeRoom(waiting: 30, limit: 80) == 0)
        for _ in 0..<20 { window.onAnswer() }
        #expect(window.freeRoom(waiting: 30, limit: 80) == 20)
        #expect(window.freeRoom(waiting: 30, limit: 40) == 10, "the flight limit bounds in flight only")
    }

    @Test func theFlightLimitHoldsWhilePerUserWorkIsAboutAndOneSecondAfter() {
        let clock = ManualClock()
        var window = Window(size: 200, queueDelayTarget: .milliseconds(5))
        #expect(window.adaptsToLatency)
        #expect(Self.pump(&window, now: clock.now, priorityQueued: true) == 64, "probing: the minimum")
        #expect(window.samplesRoundTrips)
        for _ in 0..<64 { window.onAnswer() }
        clock.advance(by: .milliseconds(500))
        #expect(Self.pump(&window, now: clock.now, priorityQueued: false) == 64, "half a second after a per-user send")
        for _ in 0..<64 { window.onAnswer() }
        clock.advance(by: .milliseconds(600))
        #expect(
            Self.pump(&window, now: clock.now, priorityQueued: false) == 200,
            "a second after the last per-user send: the whole window")
        #expect(!window.samplesRoundTrips)
    }

    @Test func withoutATargetTheWindowIsTheLimit() {
        let clock = ManualClock()
        var window = Window(size: 200, queueDelayTarget: nil)
        #expect(!window.adaptsToLatency)
        #expect(Self.pump(&window, now: clock.now, priorityQueued: true) == 200)
        #expect(!window.samplesRoundTrips)
    }
}
