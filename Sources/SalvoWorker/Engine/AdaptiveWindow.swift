/// How many notifications the worker keeps in flight: as many as keep APNs busy, and no more.
///
/// A request in flight behind a full window waits its turn: at a throughput of T notifications/s
/// a window of W adds W ÷ T of queueing to every request (Little's law) — 20 ms for 2,000 streams
/// at 100k/s, paid by every per-user push sent beside a campaign. The window that keeps the
/// gateway busy is only its bandwidth-delay product, so this limit follows the measured round
/// trip, as delay-based congestion control does (TCP Vegas, BBR, Netflix's concurrency limits):
///
/// - **The base** is the mean round trip with little in flight. A worker kept busy never sees an
///   empty pipe on its own, so at the start and every 10 s it probes: only ``minimum`` may be in
///   flight while what was sent before drains (one round trip), then the batches sent in the
///   next round trip are measured (BBR's ProbeRTT; four round trips every 10 s, about 1 % of the
///   throughput against a gateway 30 ms away). The base is the lower of the last two probes' means. A
///   mean, not the smallest sample: a gateway whose answers take 10–50 ms at any load is not
///   queueing.
/// - **Once per round** (about one round trip), if the round's mean exceeds the base by more
///   than the allowance — ``target``, or a quarter of the base if that is more, so the spread of
///   a far gateway's answers is not taken for queueing — the limit shrinks in proportion
///   (base + allowance) ÷ mean, at most by half; otherwise, if the limit was what stopped
///   dispatching during the round, it grows by its
///   square root, up to ``maximum`` (the configured stream credit).
///
/// Against Apple's gateways (tens of milliseconds away, answering without queueing) a round's
/// mean stays near the base and the limit stays at the stream credit; against a near gateway while
/// the worker's CPU is the bottleneck, answers queue unread in the worker and the limit comes
/// down to what keeps queueing under the target. A nil target keeps the limit at the maximum.
struct AdaptiveWindow<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    let maximum: Int
    let minimum: Int
    let target: Duration?
    /// The limit outside probes.
    private var steadyLimit: Int
    private var probe: Probe? {
        didSet { isProbing = probe != nil }
    }
    /// `probe != nil`, asked for every notification (``limit``): `Probe` holds `Instant`s, whose
    /// layout the standard library does not freeze, so testing the optional went through runtime
    /// metadata (~140 instructions per per-user push).
    private(set) var isProbing: Bool
    private var nextProbe: Instant?
    /// The means of the last two probes.
    private var probeMeans: (latest: Duration?, previous: Duration?) = (nil, nil)
    private var round = Round()
    private var lastMean: Duration?

    /// A probe: started by the first sample while probing; it measures the batches sent once what
    /// was in flight before it has drained.
    private struct Probe {
        /// Batches sent in `sentFrom..<sentUntil` are measured; the probe ends at `ends`.
        var sentFrom: Instant?
        var sentUntil: Instant?
        var ends: Instant?
        var giveUpAt: Instant?
        var total: Duration = .zero
        var samples = 0
    }

    private struct Round {
        var ends: Instant?
        var total: Duration = .zero
        var samples = 0
        var wasFull = false
    }

    static var probeInterval: Duration { .seconds(10) }

    /// - Parameter minimum: the least it shrinks to (at most `maximum`), and what a probe allows.
    init(maximum: Int, minimum: Int = 64, target: Duration?) {
        self.maximum = max(1, maximum)
        self.minimum = max(1, min(minimum, self.maximum))
        self.target = target
        self.steadyLimit = self.maximum
        self.probe = target == nil ? nil : Probe()
        self.isProbing = target != nil
    }

    /// The most that may be in flight now.
    var limit: Int { isProbing ? minimum : steadyLimit }

    /// The mean round trip with little in flight: the lower of the last two probes'.
    var base: Duration? {
        switch probeMeans {
        case (let latest?, let previous?): min(latest, previous)
        case (let latest, let previous): latest ?? previous
        }
    }

    /// The limit, not free room, stopped a dispatch round: there was more to send.
    mutating func limitReached() {
        round.wasFull = true
    }

    /// One request's round trip, from its submission to its answer.
    mutating func record(_ roundTrip: Duration, now: Instant) {
        guard let target else { return }
        if probe != nil {
            recordProbing(roundTrip, now: now)
            return
        }
        if let nextProbe, now >= nextProbe {
            probe = Probe()
            recordProbing(roundTrip, now: now)
            return
        }
        round.total += roundTrip
        round.samples += 1
        guard let ends = round.ends else {
            startRound(now: now, length: roundTrip)
            return
        }
        guard now >= ends else { return }
        let mean = round.total / round.samples
        lastMean = mean
        if let base, mean > base + max(target, base / 4) {
            let factor = max(0.5, (base + max(target, base / 4)) / mean)
            steadyLimit = max(minimum, Int((Double(steadyLimit) * factor).rounded(.down)))
        } else if round.wasFull {
            steadyLimit = min(maximum, steadyLimit + max(1, Int(Double(steadyLimit).squareRoot())))
        }
        startRound(now: now, length: mean)
    }

    private mutating func recordProbing(_ roundTrip: Duration, now: Instant) {
        guard var probe else { return }
        guard let sentFrom = probe.sentFrom, let sentUntil = probe.sentUntil, let ends = probe.ends else {
            // One round trip for what was in flight before to drain; the batches sent in the next
            // one are measured, and two more let their slower answers arrive too (ending at the
            // first answers would favour the fast ones).
            let length = Self.roundLength(lastMean ?? roundTrip)
            probe.sentFrom = now.advanced(by: length)
            probe.sentUntil = now.advanced(by: length * 2)
            probe.ends = now.advanced(by: length * 4)
            probe.giveUpAt = now.advanced(by: .seconds(1))
            self.probe = probe
            return
        }
        let sent = now.advanced(by: .zero - roundTrip)
        if sent >= sentFrom, sent < sentUntil {
            probe.total += roundTrip
            probe.samples += 1
        }
        let measured = now >= ends && probe.samples > 0
        guard measured || now >= probe.giveUpAt ?? ends else {
            self.probe = probe
            return
        }
        if probe.samples > 0 { probeMeans = (probe.total / probe.samples, probeMeans.latest) }
        self.probe = nil
        nextProbe = now.advanced(by: Self.probeInterval)
        startRound(now: now, length: lastMean ?? roundTrip)
    }

    private mutating func startRound(now: Instant, length: Duration) {
        round = Round(ends: now.advanced(by: Self.roundLength(length)))
    }

    /// A round lasts about a round trip, within 1…100 ms.
    private static func roundLength(_ roundTrip: Duration) -> Duration {
        min(.milliseconds(100), max(.milliseconds(1), roundTrip))
    }
}
