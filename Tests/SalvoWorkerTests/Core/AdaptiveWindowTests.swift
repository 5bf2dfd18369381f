import SalvoTestSupport
import Testing

@testable import SalvoWorker

/// The flight limit against simulated gateways: the round trip is the gateway's own plus the
/// queueing of whatever is in flight beyond what the bottleneck serves in that time.
@Suite struct AdaptiveWindowTests {
    typealias Window = AdaptiveWindow<ManualClock.Instant>

    /// A bottleneck of `throughput` notifications/s behind a round trip of `base`: the window's
    /// requests beyond the bandwidth-delay product wait their turn (Little's law).
    struct Gateway {
        var base: Duration
        var throughput: Double

        func roundTrip(inFlight: Int) -> Duration {
            let productOfDelay =
                throughput * (Double(base.components.attoseconds) / 1e18 + Double(base.components.seconds))
            let queued = max(0, Double(inFlight) - productOfDelay)
            return base + .nanoseconds(Int64(queued / throughput * 1e9))
        }
    }

    /// Runs `seconds` of samples, eight per round trip, with the window full throughout.
    private func run(
        _ window: inout Window, _ gateway: Gateway, seconds: Double, now: inout ManualClock.Instant
    ) {
        let end = now.advanced(by: .milliseconds(Int64(seconds * 1000)))
        while now < end {
            let roundTrip = gateway.roundTrip(inFlight: window.limit)
            window.limitReached()
            now = now.advanced(by: roundTrip / 8)
            window.record(roundTrip, now: now)
        }
    }

    @Test func aBusyWorkerNearItsGatewayKeepsQueueingNearTheTarget() {
        // 100k/s behind 1 ms: 100 in flight keep the gateway busy; 2,200 would queue 21 ms each.
        let gateway = Gateway(base: .milliseconds(1), throughput: 100_000)
        var window = Window(maximum: 2_200, target: .milliseconds(5))
        var now = ManualClock.Instant(offset: .zero)
        #expect(gateway.roundTrip(inFlight: 2_200) > .milliseconds(20))
        run(&window, gateway, seconds: 5, now: &now)
        #expect(window.limit >= 100, "the bandwidth-delay product stays in flight: \(window.limit)")
        let queueing = gateway.roundTrip(inFlight: window.limit) - gateway.base
        #expect(queueing <= .milliseconds(6), "queueing \(queueing) at a limit of \(window.limit)")
        #expect(window.base == gateway.base)
    }

    @Test func aLongSaturationKeepsItsBaseByProbing() {
        // Busy for 35 s: the first bucket's base expires twice; each probe finds the gateway's
        // own round trip again instead of the queued one.
        let gateway = Gateway(base: .milliseconds(1), throughput: 100_000)
        var window = Window(maximum: 2_200, target: .milliseconds(5))
        var now = ManualClock.Instant(offset: .zero)
        var probes = 0
        var wasProbing = false
        let end = now.advanced(by: .seconds(35))
        while now < end {
            let probing = window.limit == window.minimum
            if probing, !wasProbing { probes += 1 }
            wasProbing = probing
            let roundTrip = gateway.roundTrip(inFlight: window.limit)
            window.limitReached()
            now = now.advanced(by: roundTrip / 8)
            window.record(roundTrip, now: now)
        }
        #expect(probes == 4, "at the start and at 10, 20 and 30 s")
        #expect(window.base == gateway.base)
        let queueing = gateway.roundTrip(inFlight: window.limit) - gateway.base
        #expect(queueing <= .milliseconds(6), "queueing \(queueing) at a limit of \(window.limit)")
    }

    @Test func aGatewayWhoseAnswersVaryWithoutQueueingGetsEveryStream() {
        // Answers take 10–50 ms whatever is in flight: spread, not queueing.
        var window = Window(maximum: 2_200, target: .milliseconds(5))
        var now = ManualClock.Instant(offset: .zero)
        var step: Int64 = 0
        let end = now.advanced(by: .seconds(30))
        var lowest = window.maximum
        while now < end {
            if !window.isProbing { lowest = min(lowest, window.limit) }
            step += 1
            let roundTrip = Duration.milliseconds(10 + (step * 7_919) % 41)
            window.limitReached()
            now = now.advanced(by: .milliseconds(1))
            window.record(roundTrip, now: now)
        }
        #expect(lowest > 1_800, "outside probes")
        #expect(
            window.base.map { $0 > .milliseconds(20) } == true,
            "a mean, not the fastest answer: \(String(describing: window.base))")
    }

    @Test func aFarGatewayThatDoesNotQueueGetsEveryStream() {
        // Apple's gateways: 30 ms away, answering at once whatever is in flight.
        let gateway = Gateway(base: .milliseconds(30), throughput: 1_000_000)
        var window = Window(maximum: 2_200, target: .milliseconds(5))
        var now = ManualClock.Instant(offset: .zero)
        run(&window, gateway, seconds: 5, now: &now)
        #expect(window.limit == 2_200)
    }

    @Test func theLimitGrowsBackWhenTheQueueingEnds() {
        var window = Window(maximum: 2_200, target: .milliseconds(5))
        var now = ManualClock.Instant(offset: .zero)
        run(&window, Gateway(base: .milliseconds(1), throughput: 100_000), seconds: 3, now: &now)
        let shrunk = window.limit
        #expect(shrunk < 700)
        // The worker's CPU is free again (the campaign ended): no queueing at any depth.
        run(&window, Gateway(base: .milliseconds(1), throughput: 10_000_000), seconds: 3, now: &now)
        #expect(window.limit == 2_200, "from \(shrunk)")
    }

    @Test func theBaseFollowsAGatewayThatMovedFarther() {
        var window = Window(maximum: 2_200, target: .milliseconds(5))
        var now = ManualClock.Instant(offset: .zero)
        run(&window, Gateway(base: .milliseconds(1), throughput: 10_000_000), seconds: 2, now: &now)
        #expect(window.base == .milliseconds(1))
        // Every answer now takes 40 ms, none queued: within two buckets (20 s) that is the base,
        // and the limit is back at the maximum.
        run(&window, Gateway(base: .milliseconds(40), throughput: 10_000_000), seconds: 25, now: &now)
        #expect(window.base == .milliseconds(40))
        #expect(window.limit == 2_200)
    }

    @Test func theLimitGrowsOnlyWhileItStopsDispatching() {
        var window = Window(maximum: 2_200, target: .milliseconds(5))
        var now = ManualClock.Instant(offset: .zero)
        run(&window, Gateway(base: .milliseconds(1), throughput: 100_000), seconds: 3, now: &now)
        // Little traffic, no queueing, the limit never reached: nothing to grow for (after the
        // round that was still full when the traffic fell).
        func quietMillisecond() {
            now = now.advanced(by: .milliseconds(1))
            window.record(.milliseconds(1), now: now)
        }
        for _ in 0..<10 { quietMillisecond() }
        let shrunk = window.limit
        #expect(shrunk < 700)
        for _ in 0..<1_000 { quietMillisecond() }
        #expect(window.limit == shrunk)
    }

    @Test func theMinimumHoldsWhateverTheRoundTrip() {
        // 1,000/s: even the minimum of 64 queues 63 ms, which the probe takes for the base.
        var window = Window(maximum: 2_200, minimum: 64, target: .milliseconds(5))
        var now = ManualClock.Instant(offset: .zero)
        var lowest = window.limit
        for _ in 0..<100 {
            run(&window, Gateway(base: .milliseconds(1), throughput: 1_000), seconds: 0.1, now: &now)
            lowest = min(lowest, window.limit)
        }
        #expect(lowest == 64)
        #expect(window.limit < 100)
    }

    @Test func withoutATargetTheLimitIsTheMaximum() {
        var window = Window(maximum: 2_200, target: nil)
        var now = ManualClock.Instant(offset: .zero)
        run(&window, Gateway(base: .milliseconds(1), throughput: 100_000), seconds: 3, now: &now)
        #expect(window.limit == 2_200)
        #expect(window.base == nil)
    }
}
