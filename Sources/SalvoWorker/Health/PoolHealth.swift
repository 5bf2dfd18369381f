/// One APNs pool's health, as a circuit breaker: the worker's view of whether Apple (or the way to
/// it) is answering, decided from what the pool's answers say.
///
/// - **healthy**: everything goes out. Answers are counted in a sampling window; when at least
///   ``PoolHealthConfiguration/minimumSamples`` answers came and at least ``PoolHealthConfiguration/failureShare`` of
///   them were failures (5xx, Shutdown, unreachable, no answer), the pool becomes unhealthy.
/// - **unhealthy**: nothing new goes out; the worker parks the pool's work (it counts against the
///   dispatch window, so intake stops) and a failure no longer uses up a notification's attempts.
///   After the probe delay the pool is probing.
/// - **probing**: up to ``PoolHealthConfiguration/probeRequests`` parked notifications go out. One answer that
///   is not a failure makes the pool healthy again (the parked work is released); all of them
///   failing makes it unhealthy again with a doubled probe delay (up to the maximum).
///
/// A value type with time passed in, so the worker's tests drive it on a manual clock. It reads
/// the clock only on failures and transitions: a healthy pool's successes are one increment.
struct PoolHealth<C: Clock>: Sendable where C.Duration == Duration {
    enum State: Sendable, Equatable {
        case healthy
        case unhealthy(probeAt: C.Instant)
        /// `left`: probes that may still be sent; `outstanding`: probes sent and not answered.
        case probing(left: Int, outstanding: Int)
    }

    /// What one answer said about the pool.
    enum Signal: Sendable, Equatable {
        /// APNs answered (any status below 500): it is up, whatever it thought of the request.
        case answered
        /// 5xx or Shutdown, or no answer at all (unreachable, timed out, connection lost).
        case failed
    }

    /// A change of state the worker acts on.
    enum Transition: Sendable, Equatable {
        /// Park new work; set a timer for `probeAt`.
        case becameUnhealthy(probeAt: C.Instant)
        /// Release the parked work.
        case becameHealthy
    }

    let configuration: PoolHealthConfiguration
    private(set) var state = State.healthy {
        didSet { isHealthy = state == .healthy }
    }
    /// `state == .healthy`, kept beside it: `State` carries a `C.Instant` (hot-path rule 3,
    /// docs/performance-notes.md: ~500 instructions per answer before the fast path in
    /// ``countAnswerIfHealthy()``).
    private(set) var isHealthy = true
    private var windowStart: C.Instant?
    private var answers = 0
    private var failures = 0
    private var probeDelay: Duration

    init(configuration: PoolHealthConfiguration) {
        self.configuration = configuration
        self.probeDelay = configuration.initialProbeDelay
    }

    /// How many new requests may go out now: unlimited when healthy, the probes left when
    /// probing, none when unhealthy.
    var admits: Int {
        switch state {
        case .healthy: return .max
        case .unhealthy: return 0
        case .probing(let left, _): return left
        }
    }

    /// `count` requests left while probing (they are probes).
    mutating func sent(_ count: Int) {
        guard case .probing(let left, let outstanding) = state else { return }
        state = .probing(left: left - count, outstanding: outstanding + count)
    }

    /// An answer to a healthy pool (the common case) counted without touching `state`; false
    /// when ``record(_:now:)`` must see it instead.
    mutating func countAnswerIfHealthy() -> Bool {
        guard isHealthy else { return false }
        answers += 1
        return true
    }

    /// An answer. `now` is read only for a failure (``record(_:now:)`` takes a closure so a
    /// success costs no clock read).
    mutating func record(_ signal: Signal, now: () -> C.Instant) -> Transition? {
        switch state {
        case .healthy:
            answers += 1
            guard signal == .failed else { return nil }
            let now = now()
            if let windowStart, windowStart.duration(to: now) <= configuration.sampleWindow {
                failures += 1
            } else {
                // A new window: what came before it says nothing about now.
                windowStart = now
                answers = 1
                failures = 1
            }
            guard answers >= configuration.minimumSamples,
                Double(failures) >= configuration.failureShare * Double(answers)
            else { return nil }
            return open(now: now)
        case .unhealthy:
            // Answers to requests sent before the pool turned unhealthy.
            return nil
        case .probing(let left, let outstanding):
            if signal == .answered {
                probeDelay = configuration.initialProbeDelay
                resetWindow()
                state = .healthy
                return .becameHealthy
            }
            let stillOutstanding = max(0, outstanding - 1)
            guard left == 0, stillOutstanding == 0 else {
                state = .probing(left: left, outstanding: stillOutstanding)
                return nil
            }
            probeDelay = min(probeDelay * 2, configuration.maximumProbeDelay)
            return open(now: now())
        }
    }

    /// The probe delay passed: let a few requests through.
    mutating func probeDue() {
        guard case .unhealthy = state else { return }
        state = .probing(left: configuration.probeRequests, outstanding: 0)
    }

    /// When an unhealthy pool starts probing; nil otherwise.
    var probeAt: C.Instant? {
        if case .unhealthy(let probeAt) = state { return probeAt }
        return nil
    }

    private mutating func open(now: C.Instant) -> Transition {
        resetWindow()
        let probeAt = now.advanced(by: probeDelay)
        state = .unhealthy(probeAt: probeAt)
        return .becameUnhealthy(probeAt: probeAt)
    }

    private mutating func resetWindow() {
        windowStart = nil
        answers = 0
        failures = 0
    }
}
