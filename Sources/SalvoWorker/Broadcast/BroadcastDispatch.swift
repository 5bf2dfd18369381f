import SalvoAPNs

/// The core's broadcast state: how it sends (the engine's ``BroadcastSender``, behind a closure
/// so the core's tests can answer by hand on their embedded loop) and how many broadcasts it holds.
///
/// Broadcasts bypass the lanes, the rate limits and the pools' window: each is one request to a
/// pool of its own (``APNsChannelClient``), and they are few next to device pushes. Their number
/// is bounded all the same: once ``maximumPending`` are in flight or waiting for a retry, intake
/// pauses (``waiters``) until half of them settled.
struct BroadcastDispatch {
    typealias Answer = @Sendable (Result<APNsChannelResponse, APNsError>) -> Void
    /// Sends one attempt and calls the answer once, on any thread (the core hops to its loop).
    typealias Send = @Sendable (BroadcastJob, @escaping Answer) -> Void

    /// nil: this core sends no broadcasts (its jobs are dead-lettered as `invalid_request`).
    var send: Send?
    /// Requests sent and not yet answered (a drain waits for these).
    var inFlight = 0
    /// Opened and not settled: in flight, waiting for a retry, or held by a paused campaign.
    var pending = 0
    /// Consumer tasks waiting for ``pending`` to fall to half of ``maximumPending``.
    var waiters: [@Sendable () -> Void] = []

    static let maximumPending = 1_024

    var isFull: Bool { pending >= Self.maximumPending }
}
