import SalvoAPNs
import SalvoTestSupport
import Testing

@testable import SalvoWorker

/// Brownouts and outages hold work; they do not burn it: timelines on a manual clock.
@Suite("WorkerCore: brownouts and outages")
struct WorkerCoreBrownoutTests {
    @Test(
        "a 10-minute total outage: the pool turns unhealthy, probes with a trickle, and after recovery every notification is delivered with no dead letter"
    )
    func outageHoldsWork() throws {
        let harness = try CoreHarness(streams: 100) { $0.lanes.capacityPerLane = 2_500 }
        let window = harness.core.window
        #expect(window == 164)
        let pulledOn = harness.consume([CoreHarness.campaign("c1", tokens: 0..<2_000)])
        #expect(pulledOn)
        #expect(harness.pool.unanswered.count == window, "the window fills")

        // APNs answers 503 to everything: the first answers are ordinary retries, then the pool
        // turns unhealthy and the rest park as they were.
        harness.answer { _ in ScriptedPool.serviceUnavailable }
        var stats = harness.statistics
        #expect(stats.unhealthyPools == 1)
        #expect(stats.poolsTurnedUnhealthy == 1)
        #expect(stats.retried == 19, "failures before the 20th answer are retried with an attempt used")
        #expect(stats.parked == window - 19)
        #expect(harness.pool.unanswered.isEmpty, "nothing new goes out while unhealthy")
        #expect(harness.core.occupied <= window)

        // Intake stops: the lane holds the job's remaining notifications and one more job waits.
        let pulledOnAgain = harness.consume([CoreHarness.campaign("c2", tokens: 2_000..<3_000)])
        #expect(!pulledOnAgain, "a full lane and window stop the consumer")

        // Ten minutes of outage: each probe is a handful of requests, the delay doubling to 30 s.
        var probes = 0
        var elapsed = Duration.zero
        while elapsed < .seconds(600) {
            harness.advance(by: .milliseconds(500))
            elapsed += .milliseconds(500)
            let answered = harness.answer { _ in ScriptedPool.serviceUnavailable }
            #expect(answered <= 5, "a probe is at most five requests")
            if answered > 0 { probes += 1 }
            #expect(harness.core.occupied <= window)
        }
        stats = harness.statistics
        #expect(probes >= 20 && probes <= 30, "probes at 1, 2, 4, 8, 16 then every 30 s: \(probes)")
        #expect(
            harness.pool.submittedCount < window + 30 * 5 + 20,
            "a trickle: \(harness.pool.submittedCount) requests in ten minutes")
        #expect(stats.deadLettered == 0)
        #expect(harness.published.isEmpty, "no dead letter, no hand-off")

        // Apple recovers: the next probe is answered, the parked work goes out, then the rest.
        var rounds = 0
        while harness.committed.count < 2, rounds < 400 {
            harness.advance(by: .milliseconds(500))
            harness.answer { _ in ScriptedPool.accepted }
            rounds += 1
        }
        stats = harness.statistics
        #expect(harness.committed.count == 2, "both jobs complete")
        #expect(stats.delivered == 3_000)
        #expect(stats.deadLettered == 0)
        #expect(stats.unhealthyPools == 0)
        #expect(stats.parked == 0)
    }

    @Test("a few failures among successes do not make a pool unhealthy")
    func sporadicFailuresStayHealthy() throws {
        let harness = try CoreHarness(streams: 100)
        harness.consume([CoreHarness.campaign("c1", tokens: 0..<1_000)])
        var index = 0
        var rounds = 0
        while harness.committed.isEmpty, rounds < 200 {
            harness.answer { _ in
                index += 1
                return index % 10 == 0 ? ScriptedPool.serviceUnavailable : ScriptedPool.accepted
            }
            harness.advance(by: .milliseconds(100))
            rounds += 1
        }
        let stats = harness.statistics
        #expect(stats.poolsTurnedUnhealthy == 0)
        #expect(stats.delivered == 1_000)
        #expect(stats.retried > 0)
    }

    @Test("an unreachable APNs counts as failures too; a probe answered with a 4xx means APNs is up")
    func unreachableThenAnswered() throws {
        let harness = try CoreHarness(streams: 10)
        harness.consume([CoreHarness.campaign("c1", tokens: 0..<200)])
        harness.answer { _ in ScriptedPool.unreachable }
        harness.answer { _ in ScriptedPool.unreachable }
        #expect(harness.statistics.unhealthyPools == 1)
        harness.advance(by: .seconds(1))
        #expect(harness.pool.unanswered.count == 5)
        harness.answer { _ in .rejected(APNsResponse(status: 400, reason: .badDeviceToken)) }
        #expect(harness.statistics.unhealthyPools == 0)
        #expect(harness.pool.unanswered.count > 5, "the parked work is released")
    }

    @Test("the health state machine: window, share, probes and doubling delays")
    func healthStateMachine() {
        var health = PoolHealth<ManualClockAlias>(
            configuration: PoolHealthConfiguration(minimumSamples: 4, probeRequests: 2))
        let clock = ManualClockAlias()
        for _ in 0..<3 { #expect(health.record(.failed, now: { clock.now }) == nil) }
        #expect(
            health.record(.failed, now: { clock.now }) == .becameUnhealthy(probeAt: clock.now.advanced(by: .seconds(1)))
        )
        #expect(health.admits == 0)
        health.probeDue()
        #expect(health.admits == 2)
        health.sent(2)
        #expect(health.record(.failed, now: { clock.now }) == nil)
        #expect(
            health.record(.failed, now: { clock.now }) == .becameUnhealthy(probeAt: clock.now.advanced(by: .seconds(2)))
        )
        health.probeDue()
        health.sent(1)
        #expect(health.record(.answered, now: { clock.now }) == .becameHealthy)
        #expect(health.isHealthy)
        // Answers in an old window do not count towards a new one.
        for _ in 0..<3 { _ = health.record(.failed, now: { clock.now }) }
        clock.advance(by: .seconds(11))
        #expect(health.record(.failed, now: { clock.now }) == nil)
        #expect(health.isHealthy)
    }

    @Test("answers counted on the healthy fast path weigh in the failure share as recorded ones do")
    func fastPathAnswersCount() {
        let clock = ManualClockAlias()
        var health = PoolHealth<ManualClockAlias>(configuration: PoolHealthConfiguration(minimumSamples: 4))
        // A failure opens the window; two answers through the fast path and one more failure make
        // four samples, half of them failures: unhealthy. Uncounted, the window would hold two.
        #expect(health.record(.failed, now: { clock.now }) == nil)
        for _ in 0..<2 {
            let counted = health.countAnswerIfHealthy()
            #expect(counted)
        }
        #expect(health.record(.failed, now: { clock.now }) != nil)
        #expect(!health.isHealthy)
        // Unhealthy, the fast path declines: the state machine must see the answer.
        let countedWhileUnhealthy = health.countAnswerIfHealthy()
        #expect(!countedWhileUnhealthy)
    }
}

typealias ManualClockAlias = ManualClock
