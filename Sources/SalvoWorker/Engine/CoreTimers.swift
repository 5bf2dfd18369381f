import NIOCore

/// The core's scheduled tasks, in one record: the machines decide when something is due, the
/// core holds the event loop's handles here so it can cancel them. Each task captures the core
/// strongly (see `WorkerCore.scheduleStatistics`) and is cancelled when the core finishes.
struct CoreTimers<Instant> {
    /// Everything due later (``WorkerCore/armTimer()``), and the deadline it is set for.
    var due: Scheduled<Void>?
    var dueAt: Instant?
    /// A refill deferred until a batch's worth of the window is free (``DispatchWindow``).
    var refill: Scheduled<Void>?
    var statistics: Scheduled<Void>?
    var revokeCheck: Scheduled<Void>?
    var drainDeadline: Scheduled<Void>?
    /// A pump once the app's rate limit has room for the campaign lane again
    /// (``WorkerCore/campaignBookingHorizon``).
    var limiterWake: Scheduled<Void>?
}
