/// When the core writes job checkpoints (``JobCheckpoint``) and which it writes: once per
/// checkpoint interval, each partition's checkpoint only when it moved since last written.
///
/// Due times advance by the interval from the last due time, not from the tick that wrote:
/// measuring from the tick would add up to a tick (50 ms) to every interval, and what a crash
/// re-sends grows with the checkpoint's age. A stalled loop skips the missed writes instead of
/// catching up with a burst of them.
struct CheckpointSchedule<Instant: InstantProtocol> where Instant.Duration == Duration {
    /// Where checkpoints are read and written (the engine's follower and topic).
    let access: CheckpointAccess
    private let interval: Duration
    private var dueAt: Instant
    /// The checkpoint last written per partition.
    private var written: [SourcePosition.Partition: JobCheckpoint] = [:]

    init(access: CheckpointAccess, interval: Duration, now: Instant) {
        self.access = access
        self.interval = interval
        self.dueAt = now.advanced(by: interval)
    }

    /// From the core's statistics timer: true when checkpoints are due now.
    mutating func onTick(now: Instant) -> Bool {
        guard access.topic != nil, now >= dueAt else { return false }
        dueAt = dueAt.advanced(by: interval)
        if dueAt <= now { dueAt = now.advanced(by: interval) }
        return true
    }

    /// Whether `checkpoint` moved since its partition's last write; if so it counts as written.
    mutating func onCheckpoint(_ checkpoint: JobCheckpoint) -> Bool {
        let partition = checkpoint.partitionKey
        guard written[partition] != checkpoint else { return false }
        written[partition] = checkpoint
        return true
    }

    /// A checkpoint was refused: every partition's next one is written again, whether it moved
    /// or not (the lost one may have been the one the next owner needs).
    mutating func onWriteFailed() {
        written = [:]
    }
}
