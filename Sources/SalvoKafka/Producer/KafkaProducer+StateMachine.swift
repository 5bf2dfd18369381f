extension KafkaProducer {
    /// The producer's bookkeeping, free of I/O: which messages await a delivery report, who waits
    /// for queue room or for a flush, and how shutdown proceeds (drain, then purge, then stop).
    ///
    /// Generic over what completes a message (`Completion`), who waits (`Waiter`) and the clock,
    /// so tests can use plain values and drive time.
    struct StateMachine<Completion, Waiter, C: Clock> where C.Duration == Duration {
        enum Lifecycle: Equatable {
            case running
            /// `shutdown` was called: no new messages; waiting for outstanding reports.
            case draining(deadline: C.Instant)
            /// The drain timed out: librdkafka was told to purge; collecting the purge reports.
            case purging(deadline: C.Instant)
            case stopped
        }

        /// What the loop does at the start of an iteration.
        struct TickAction {
            /// Senders that waited for queue room: retry now.
            var retry: [Waiter] = []
            var flushed: [Waiter] = []
            var flushTimedOut: [Waiter] = []
            var purge = false
            var stop = false
        }

        /// How long purge reports are awaited before the rest is failed locally.
        static var purgeGrace: Duration { .seconds(2) }

        private(set) var lifecycle: Lifecycle = .running
        private var pending: [UInt: Completion] = [:]
        private var lastID: UInt = 0
        private var capacityWaiters: [Waiter] = []
        private var flushWaiters: [(deadline: C.Instant, waiter: Waiter)] = []
        private(set) var fatalError: KafkaError?

        var outstandingCount: Int { pending.count }

        /// Allocates the id for a message about to be handed to librdkafka, or refuses.
        mutating func beginSend() -> Result<UInt, KafkaError> {
            if let fatalError { return .failure(fatalError) }
            guard lifecycle == .running else { return .failure(.shutdown("the producer is shutting down")) }
            lastID &+= 1
            if lastID == 0 { lastID = 1 }  // 0 would be a NULL opaque pointer
            return .success(lastID)
        }

        /// librdkafka accepted the message with this id.
        mutating func enqueued(id: UInt, completion: Completion) {
            pending[id] = completion
        }

        /// A delivery report arrived. Returns who to tell, or nil for an unknown id.
        mutating func delivered(id: UInt) -> Completion? {
            pending.removeValue(forKey: id)
        }

        /// Parks a sender until the queue may have room. Returns false if it must not wait.
        mutating func waitForCapacity(_ waiter: Waiter) -> Bool {
            guard lifecycle == .running, fatalError == nil else { return false }
            capacityWaiters.append(waiter)
            return true
        }

        /// Returns true when the flush is complete already; otherwise the waiter is stored.
        mutating func flush(_ waiter: Waiter, deadline: C.Instant) -> Bool {
            if pending.isEmpty { return true }
            flushWaiters.append((deadline, waiter))
            return false
        }

        mutating func fail(_ error: KafkaError) {
            fatalError = fatalError ?? error
        }

        mutating func shutdown(now: C.Instant, timeout: Duration) {
            guard lifecycle == .running else { return }
            lifecycle = .draining(deadline: now.advanced(by: timeout))
        }

        mutating func tick(now: C.Instant) -> TickAction {
            var action = TickAction()
            swap(&action.retry, &capacityWaiters)
            if pending.isEmpty {
                action.flushed = flushWaiters.map(\.waiter)
                flushWaiters = []
            } else {
                action.flushTimedOut = flushWaiters.filter { now >= $0.deadline }.map(\.waiter)
                flushWaiters.removeAll { now >= $0.deadline }
            }
            switch lifecycle {
            case .running:
                break
            case .draining(let deadline):
                if pending.isEmpty {
                    lifecycle = .stopped
                    action.stop = true
                } else if now >= deadline {
                    lifecycle = .purging(deadline: now.advanced(by: Self.purgeGrace))
                    action.purge = true
                }
            case .purging(let deadline):
                if pending.isEmpty || now >= deadline {
                    lifecycle = .stopped
                    action.stop = true
                }
            case .stopped:
                action.stop = true
            }
            return action
        }

        /// The loop ended: everything still waiting must be failed by the caller.
        mutating func stopped() -> (completions: [Completion], waiters: [Waiter]) {
            lifecycle = .stopped
            let completions = pending.sorted { $0.key < $1.key }.map(\.value)
            pending = [:]
            let waiters = capacityWaiters + flushWaiters.map(\.waiter)
            capacityWaiters = []
            flushWaiters = []
            return (completions, waiters)
        }
    }
}

extension KafkaProducer.StateMachine.TickAction: Equatable where Waiter: Equatable {}
