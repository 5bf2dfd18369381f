import Synchronization

/// Fired once, by graceful shutdown, cancellation or a failed consumer; awaited by the engine's
/// `run`. Fire-before-wait and wait-before-fire both work, and the waiter is always resumed.
final class ShutdownSignal: Sendable {
    private struct State {
        var isFired = false
        var error: (any Error)?
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    /// `error`: why the engine stops, when it is a failure (the first one is kept).
    func fire(error: (any Error)? = nil) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.isFired else { return nil }
            state.isFired = true
            state.error = error
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    var error: (any Error)? { state.withLock { $0.error } }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let fired = state.withLock { state -> Bool in
                if state.isFired { return true }
                state.waiter = continuation
                return false
            }
            if fired { continuation.resume() }
        }
    }
}
