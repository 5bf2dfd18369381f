import SalvoPrimitives
import Synchronization

/// The loop delegate of clients that only need their logs and errors drained and blocking calls
/// run off the cooperative pool (admin clients, the mock cluster's owner).
final class RDKafkaPlainDelegate: RDKafkaLoopDelegate {
    private struct State {
        var stopRequested = false
        var isStopped = false
        var stopWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    /// Runs on the loop thread right before the client is destroyed.
    private let beforeDestroy: @Sendable () -> Void

    init(beforeDestroy: @escaping @Sendable () -> Void = {}) {
        self.beforeDestroy = beforeDestroy
    }

    /// Asks the loop to end; `loop.wake()` makes it notice at once.
    func requestStop() {
        state.withLock { $0.stopRequested = true }
    }

    /// Ends the loop and returns once the client is destroyed.
    func stop(_ loop: RDKafkaLoop) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let stopped = state.withLock { state in
                state.stopRequested = true
                guard !state.isStopped else { return true }
                state.stopWaiters.append(continuation)
                return false
            }
            if stopped {
                continuation.resume()
            } else {
                loop.wake()
            }
        }
    }

    func loopWillPoll(_ client: RDKafkaClient) -> RDKafkaLoop.Step {
        state.withLock { $0.stopRequested } ? .stop : .poll(timeoutMilliseconds: 100)
    }

    func loop(_ client: RDKafkaClient, received event: RDKafkaEvent) {}

    func loopWillStop(_ client: RDKafkaClient) {
        beforeDestroy()
    }

    func loopDidStop() {
        let waiters = state.withLock { state in
            state.isStopped = true
            var waiters: [CheckedContinuation<Void, Never>] = []
            swap(&waiters, &state.stopWaiters)
            return waiters
        }
        for waiter in waiters {
            waiter.resume()
        }
    }
}
