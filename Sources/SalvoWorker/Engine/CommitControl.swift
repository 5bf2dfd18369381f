/// Commit control: the commit gate (``CommitGate``) with its reporting and waiters, and the
/// revokes under way with theirs. One machine for both because both answer the same question for
/// the core — may this consumer's work go on, or must it wait for Kafka — and a lost partition
/// changes both at once (its consumer's uncommitted count is the next owner's now).
///
/// The core performs the returned actions (log, count, resume waiters, pump); the state stays
/// here. A value type with time passed in, so its tests drive it as a timeline on a manual clock.
///
/// Generic over the waiter (a continuation's resume in production, a number in tests).
struct CommitControl<Waiter, Instant: InstantProtocol> where Instant.Duration == Duration {
    /// A change of the gate for the core to act on, with the gate's state for its gauge.
    struct GateReport {
        enum Change {
            case none
            /// Log it and count a closure: commits fail and too much completed work waits.
            case closed(uncommitted: Int, bound: Int)
            /// Commits succeed again: resume these consumer tasks and pump.
            case opened([Waiter])
        }

        let closed: Bool
        let change: Change
    }

    /// Revokes whose partitions settled (their `done` to call now), and whether any still waits
    /// (the core checks again shortly).
    struct RevokeCheck {
        let finished: [Waiter]
        let waiting: Bool
    }

    /// Partitions given up: what the gate reported for each consumer they belonged to, and the
    /// revokes that ended with them.
    struct Revoked {
        let reports: [GateReport]
        let finished: [Waiter]
    }

    private struct RevokeWaiter {
        let partitions: Set<SourcePosition.Partition>
        let done: Waiter
    }

    private var gate: CommitGate
    /// ``JobLedger/notificationsCompleted`` as last counted into the gate.
    private var counted = 0
    /// Consumer tasks waiting for the gate to open.
    private var waiters: [Waiter] = []
    /// The gate's state as last logged and counted.
    private var reportedClosed = false
    /// When each lane consumer's last commit succeeded (or the core started).
    private var lastSucceeded: [Instant]
    /// How long without a successful commit, with the bound reached, before commits count as
    /// failing (``onOverdueCheck(now:)``).
    private let overdue: Duration
    /// The per-user lane's topic: its partitions belong to the priority consumer.
    private let priorityTopic: String
    /// Partitions whose revoke began (``onRevoking(_:done:)``) and has not finished.
    private var revoking: Set<SourcePosition.Partition> = []
    private var revokeWaiters: [RevokeWaiter] = []

    /// `overdue`: eight commit intervals, at least 2 s (a commit waiting on a silent coordinator
    /// otherwise reports only at librdkafka's request timeout).
    init(bound: Int, commitInterval: Duration, priorityTopic: String, now: Instant) {
        self.gate = CommitGate(bound: bound)
        self.overdue = max(.seconds(2), commitInterval * 8)
        self.priorityTopic = priorityTopic
        self.lastSucceeded = Array(repeating: now, count: CommitGate.Consumer.allCases.count)
    }

    /// No new lane work while closed.
    var isClosed: Bool { gate.isClosed }

    /// The consumer that commits `topic`'s offsets.
    func consumer(of topic: String) -> CommitGate.Consumer { topic == priorityTopic ? .priority : .campaign }

    // MARK: The gate

    /// A job of `topic` completed; `notificationsCompleted` is the ledger's running total. Once
    /// per completed job: two additions.
    mutating func onJobCompleted(topic: String, notificationsCompleted: Int) {
        gate.completed(notificationsCompleted - counted, consumer: consumer(of: topic))
        counted = notificationsCompleted
    }

    /// A lane consumer's offset commit finished: the gate may have closed since the last report
    /// (completions while commits fail) or opened now (a success).
    mutating func onCommitFinished(_ consumer: CommitGate.Consumer, succeeded: Bool, now: Instant) -> GateReport {
        _ = gate.commitFinished(consumer, succeeded: succeeded)
        if succeeded { lastSucceeded[consumer.rawValue] = now }
        return report(consumer)
    }

    /// From the core's statistics timer: a consumer with the bound reached and no successful
    /// commit for ``overdue`` closes the gate. A report for each consumer that did.
    mutating func onOverdueCheck(now: Instant) -> [GateReport] {
        var reports: [GateReport] = []
        for consumer in CommitGate.Consumer.allCases where gate.uncommitted(consumer) >= gate.bound {
            guard lastSucceeded[consumer.rawValue].duration(to: now) > overdue else { continue }
            gate.commitOverdue(consumer)
            reports.append(report(consumer))
        }
        return reports
    }

    /// A consumer task finds the gate closed: it waits until the gate opens (or the drain).
    mutating func onIntakeWaiting(_ waiter: Waiter) {
        waiters.append(waiter)
    }

    /// Draining: no consumer task waits for the gate any more (they are closing). Empty, with
    /// nothing allocated, when none waits.
    mutating func onDrainReleasesWaiters() -> [Waiter] {
        guard !waiters.isEmpty else { return [] }
        defer { waiters = [] }
        return waiters
    }

    private mutating func report(_ consumer: CommitGate.Consumer) -> GateReport {
        let closed = gate.isClosed
        guard closed != reportedClosed else { return GateReport(closed: closed, change: .none) }
        reportedClosed = closed
        if closed {
            return GateReport(closed: true, change: .closed(uncommitted: gate.uncommitted(consumer), bound: gate.bound))
        }
        defer { waiters = [] }
        return GateReport(closed: false, change: .opened(waiters))
    }

    // MARK: Revokes

    /// Whether `partition`'s revoke began and has not finished (asked per record taken in).
    func isRevoking(_ partition: SourcePosition.Partition) -> Bool {
        !revoking.isEmpty && revoking.contains(partition)
    }

    /// The consumer is about to commit and give up `partitions`; `done` once none of their jobs
    /// is unsettled (``onRevokeCheck(isSettled:)``).
    mutating func onRevoking(_ partitions: Set<SourcePosition.Partition>, done: Waiter) {
        revoking.formUnion(partitions)
        revokeWaiters.append(RevokeWaiter(partitions: partitions, done: done))
    }

    /// Ends every revoke whose partitions `isSettled` says have nothing in flight or unacknowledged.
    mutating func onRevokeCheck(isSettled: (Set<SourcePosition.Partition>) -> Bool) -> RevokeCheck {
        guard !revokeWaiters.isEmpty else { return RevokeCheck(finished: [], waiting: false) }
        var finished: [Waiter] = []
        revokeWaiters.removeAll { waiter in
            guard isSettled(waiter.partitions) else { return false }
            finished.append(waiter.done)
            return true
        }
        return RevokeCheck(finished: finished, waiting: !revokeWaiters.isEmpty)
    }

    /// The partitions are gone. A lost assignment leaves no offsets to commit, so no commit would
    /// ever open the gate: their consumers' uncommitted counts are dropped. A barrier that gave up
    /// waiting ends here (its `done` is ignored by the consumer, but the waiter goes).
    mutating func onRevoked(_ partitions: Set<SourcePosition.Partition>) -> Revoked {
        revoking.subtract(partitions)
        var reports: [GateReport] = []
        for consumer in Set(partitions.map { consumer(of: $0.topic) }) {
            gate.partitionsGone(consumer)
            reports.append(report(consumer))
        }
        var finished: [Waiter] = []
        revokeWaiters.removeAll { waiter in
            guard !waiter.partitions.isDisjoint(with: partitions) else { return false }
            finished.append(waiter.done)
            return true
        }
        return Revoked(reports: reports, finished: finished)
    }
}

extension CommitControl.GateReport: Equatable where Waiter: Equatable {}
extension CommitControl.GateReport.Change: Equatable where Waiter: Equatable {}
