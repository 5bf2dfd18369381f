import Dispatch
import SalvoPrimitives
import Synchronization

/// Lets the application finish the work of partitions before a rebalance takes them away.
///
/// Without it a revoke commits the done watermark at once, while the application may still have
/// requests of those partitions in flight: their answers then arrive after the commit, and the
/// next owner sends those messages again. With it, the consumer's poll thread calls ``prepare``
/// with the partitions (the application stops their work and lets what is in flight finish) and
/// waits until the application calls `done` — or until ``limit`` passed — before it commits and
/// gives the partitions up. Not called for a lost assignment: the coordinator would refuse the
/// commit anyway.
///
/// The wait blocks the poll thread (not a Swift concurrency thread): no messages are fetched and
/// no heartbeat-driven work happens meanwhile, which a rebalance tolerates for far longer than
/// the few seconds a limit should be.
public struct KafkaRevokeBarrier: Sendable {
    /// The longest the poll thread waits for `done`.
    public var limit: Duration
    /// Called on the poll thread; must return at once and call `done` (from any thread, once)
    /// when the partitions' work is finished. A late or repeated call is ignored.
    public var prepare: @Sendable (_ partitions: [KafkaTopicPartition], _ done: @escaping @Sendable () -> Void) -> Void

    public init(
        limit: Duration,
        prepare:
            @escaping @Sendable (_ partitions: [KafkaTopicPartition], _ done: @escaping @Sendable () -> Void) -> Void
    ) {
        self.limit = limit
        self.prepare = prepare
    }

    /// Runs ``prepare`` and waits; returns whether `done` came within ``limit``.
    func wait(for partitions: [KafkaTopicPartition]) -> Bool {
        // A semaphore per revoke: a `done` arriving after the limit signals one nobody waits on.
        let semaphore = DispatchSemaphore(value: 0)
        let once = SignalOnce(semaphore: semaphore)
        prepare(partitions) { once.signal() }
        return semaphore.wait(timeout: .now() + .nanoseconds(Int(max(.zero, limit).nanoseconds))) == .success
    }
}

/// Signals its semaphore at most once, however often it is called.
private final class SignalOnce: Sendable {
    private let semaphore: DispatchSemaphore
    private let signalled = Atomic<Bool>(false)

    init(semaphore: DispatchSemaphore) { self.semaphore = semaphore }

    func signal() {
        guard !signalled.exchange(true, ordering: .relaxed) else { return }
        semaphore.signal()
    }
}
