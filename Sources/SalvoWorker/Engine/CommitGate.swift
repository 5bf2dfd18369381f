/// Bounds the work a lost assignment re-sends while offset commits fail.
///
/// Each lane consumer commits its done watermarks every commit interval. While the coordinator is
/// unreachable those commits fail, yet APNs still answers, so jobs keep completing: when the
/// session then times out, the group gives the partitions to another member (or back to this one)
/// at the last committed offset and everything completed meanwhile is sent again. The gate counts
/// the notifications of jobs completed since each consumer's last successful commit and, once a
/// consumer's latest commit failed and its count reached the bound, closes: the core takes no new
/// records and dispatches no new lane work (in-flight answers, replays and retries still finish)
/// until a commit of that consumer succeeds.
///
/// A commit counts as failing when it fails, and also when none has succeeded for a while (the
/// ``CommitControl``) although work waits for one.
///
/// The count is reset by any successful commit of the consumer, which covers the done watermark
/// at that moment; jobs completed above a watermark held back by an unfinished job are not
/// committed by it, so the bound is approximate by the work behind such a job.
struct CommitGate: Sendable, Equatable {
    /// The two lane consumers: the campaign lane (jobs and retry topics) and the per-user lane.
    enum Consumer: Int, CaseIterable, Sendable {
        case campaign = 0
        case priority = 1
    }

    let bound: Int
    private var uncommitted = [0, 0]
    private var failing = [false, false]

    init(bound: Int) {
        self.bound = bound
    }

    /// No new work while closed.
    var isClosed: Bool {
        Consumer.allCases.contains { failing[$0.rawValue] && uncommitted[$0.rawValue] >= bound }
    }

    /// Notifications of jobs of `consumer` completed since its last successful commit.
    func uncommitted(_ consumer: Consumer) -> Int { uncommitted[consumer.rawValue] }

    /// A job of `consumer` with `notifications` notifications completed (its offset marked done).
    mutating func completed(_ notifications: Int, consumer: Consumer) {
        uncommitted[consumer.rawValue] += notifications
    }

    /// Partitions of `consumer` were given up: what it had completed without committing is the
    /// next owner's to send again, and no commit of it is pending any more.
    mutating func partitionsGone(_ consumer: Consumer) {
        uncommitted[consumer.rawValue] = 0
        failing[consumer.rawValue] = false
    }

    /// No commit of `consumer` has succeeded for a long while although it has completed work to
    /// commit: a commit that hangs (a broker that accepts connections but does not answer) counts
    /// as failing, or the gate would wait for the request's timeout.
    mutating func commitOverdue(_ consumer: Consumer) {
        failing[consumer.rawValue] = true
    }

    /// An offset commit of `consumer` finished. Returns whether the gate opened by it.
    mutating func commitFinished(_ consumer: Consumer, succeeded: Bool) -> Bool {
        let wasClosed = isClosed
        failing[consumer.rawValue] = !succeeded
        if succeeded { uncommitted[consumer.rawValue] = 0 }
        return wasClosed && !isClosed
    }
}
