/// What the startup and liveness probes are told (`/health/started`, `/health/live`), from the
/// engine's life and its dispatch core's heartbeat.
///
/// The core publishes its statistics every 50 ms from a timer on its event loop, whatever the
/// load: a heartbeat older than ``stallLimit`` while the engine runs means that loop is stuck (a
/// deadlock, a hot loop), and only a restart helps. Nothing else counts against liveness: an
/// idle worker, an APNs outage or a broker outage are no reason to restart, and a drain is
/// bounded by its own deadline.
struct WorkerLiveness: Sendable {
    /// How stale the heartbeat may get before the worker is reported dead: hundreds of missed
    /// beats, far beyond any GC-free pause or CPU throttling of a healthy process.
    static let stallLimit: Duration = .seconds(15)

    private enum Phase: Sendable {
        /// Connecting clients and pools; the startup probe waits.
        case starting
        case running(lastBeat: ContinuousClock.Instant)
        /// Draining or stopped: live until the process exits.
        case finishing
    }

    private var phase = Phase.starting

    /// The engine runs: its clients are created and its core has started.
    var hasStarted: Bool {
        if case .starting = phase { return false }
        return true
    }

    mutating func started(at now: ContinuousClock.Instant) {
        if case .starting = phase { phase = .running(lastBeat: now) }
    }

    mutating func beat(at now: ContinuousClock.Instant) {
        if case .running = phase { phase = .running(lastBeat: now) }
    }

    mutating func finishing() {
        phase = .finishing
    }

    /// False only while running with a heartbeat older than ``stallLimit``.
    func isLive(at now: ContinuousClock.Instant) -> Bool {
        guard case .running(let lastBeat) = phase else { return true }
        return lastBeat.duration(to: now) <= Self.stallLimit
    }
}
