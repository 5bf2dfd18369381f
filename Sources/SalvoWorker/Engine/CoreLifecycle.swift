/// The core's life: running, draining (graceful shutdown), finished. Decides when a drain hands
/// its held work to the retry topic and when it ends, so the core only performs the steps; a value
/// type with time passed in, so its tests drive a drain as a timeline on a manual clock.
///
/// A drain has three steps. Once nothing is in flight (no request, no replay, no broadcast), the
/// held work goes to the retry topic, at most once (``onWorkSettled(idle:)``); once every record
/// is acknowledged after that, the final checkpoints of every partition are written (so a commit
/// that fails next costs no re-send of what completed); once those are acknowledged too, the
/// drain ends (``onRecordsSettled(pending:)``). The deadline ends it whatever is left
/// (``onDeadline()``).
///
/// Generic over the drain's waiter (a promise in production, a number in tests).
struct CoreLifecycle<Waiter, Instant: InstantProtocol> where Instant.Duration == Duration {
    private enum Phase {
        case running
        /// No new slots from the lanes; replays still go out; due retries go to the retry topic.
        case draining
        /// Drain finished or timed out: outcomes and timers are ignored.
        case finished
    }

    /// What ``onBeginDrain(_:budget:now:)`` asks the core to do.
    enum BeginDrain {
        /// Not running (drained already): answer the waiter now.
        case answer(Waiter)
        /// Draining: end the drain at `deadline` whatever is left, and pump (no new lane work).
        case start(deadline: Instant)
    }

    /// What the core does when the drain ends: cancel its timers, publish the last statistics and
    /// answer the waiter (nil when the core finished without a drain waiting for it).
    enum Finish {
        case none
        /// Write the final checkpoints, then report the records again.
        case checkpoint
        case finish(Waiter?)
    }

    /// A phase without a payload (the deadline is the core's task, not state here): asked on
    /// every answer, so never copied through an `Instant`'s metadata (docs/performance-notes.md).
    private var phase = Phase.running
    private var waiter: Waiter?
    /// The held work went to the retry topic (once per drain).
    private var handedOff = false
    /// The final checkpoints were asked for (once per drain).
    private var checkpointed = false

    var isRunning: Bool { phase == .running }
    var isFinished: Bool { phase == .finished }

    /// Graceful shutdown was asked for with `budget` to finish in.
    mutating func onBeginDrain(_ waiter: Waiter, budget: Duration, now: Instant) -> BeginDrain {
        guard phase == .running else { return .answer(waiter) }
        phase = .draining
        self.waiter = waiter
        return .start(deadline: now.advanced(by: budget))
    }

    /// In-flight work changed; `idle`: nothing is in flight or waiting to be replayed. Returns
    /// true once per drain, when the core must hand its held work to the retry topic now.
    mutating func onWorkSettled(idle: Bool) -> Bool {
        guard phase == .draining, !handedOff, idle else { return false }
        handedOff = true
        return true
    }

    /// Records were acknowledged (or the work settled); `pending` are still unacknowledged. Once
    /// the held work was handed off and nothing is pending, the final checkpoints are asked for
    /// (once); the drain ends when nothing is pending after them.
    mutating func onRecordsSettled(pending: Int) -> Finish {
        guard phase == .draining, handedOff, pending == 0 else { return .none }
        guard checkpointed else {
            checkpointed = true
            return .checkpoint
        }
        return finish()
    }

    /// The drain's deadline passed (its task fired): the drain ends whatever is left. The task's
    /// firing is the deadline: the event loop's clock, not this type's, decides it.
    mutating func onDeadline() -> Finish {
        guard phase == .draining else { return .none }
        return finish()
    }

    private mutating func finish() -> Finish {
        phase = .finished
        let waiter = self.waiter
        self.waiter = nil
        return .finish(waiter)
    }
}

extension CoreLifecycle.BeginDrain: Equatable where Waiter: Equatable {}
extension CoreLifecycle.Finish: Equatable where Waiter: Equatable {}
