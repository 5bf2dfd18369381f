/// When the core writes partition checkpoints (``PartitionCheckpoint``), which it writes, and what
/// Kafka's acknowledgement of each confirms: once per checkpoint interval, when a job's done count
/// grew by the count trigger (``JobLedger/checkpointEvery``), and before a revoke or a drain gives
/// partitions up; each partition's checkpoint only when it moved since last written.
///
/// Due times advance by the interval from the last due time, not from the tick that wrote:
/// measuring from the tick would add up to a tick (50 ms) to every interval, and what a crash
/// re-sends grows with the checkpoint's age. A stalled loop skips the missed writes instead of
/// catching up with a burst of them.
///
/// Each write gets a sequence number (carried by its ``PendingRecord``); its acknowledgement
/// returns the jobs' done counts it recorded, which the ledger then counts as confirmed
/// (``JobLedger/confirm(_:done:)``): the unconfirmed-sends bound waits for exactly that.
struct CheckpointSchedule<Instant: InstantProtocol> where Instant.Duration == Duration {
    /// Where checkpoints are read and written (the engine's follower and topic).
    let access: CheckpointAccess
    private let interval: Duration
    private var dueAt: Instant
    /// The checkpoint last written per partition.
    private var written: [SourcePosition.Partition: PartitionCheckpoint] = [:]
    /// Writes not yet acknowledged, by sequence number: the partition and the jobs they record.
    private var unacknowledged: [JobLedger.Generation: (SourcePosition.Partition, [JobLedger.WrittenJob])] = [:]
    private var nextSequence: JobLedger.Generation = 1
    /// Partitions whose final checkpoint (a revoke's or a drain's) is not yet acknowledged.
    private var finalWrites: [SourcePosition.Partition: JobLedger.Generation] = [:]
    /// Partitions whose final checkpoint was asked for (written, or nothing to write).
    private var finalAsked: Set<SourcePosition.Partition> = []
    /// Whether a drain's final checkpoints were asked for.
    private var drainCheckpointed = false
    /// Whether Kafka refused a final checkpoint.
    private var finalRefused = false
    /// Since when a job waits for a checkpoint's acknowledgement (``onWaiting(now:)``).
    private var waitingSince: Instant?

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

    /// Whether `checkpoint` moved since its partition's last write (always, when `final`); if so
    /// it counts as written, and the returned sequence number goes with its record.
    mutating func onCheckpoint(
        _ checkpoint: PartitionCheckpoint, jobs: [JobLedger.WrittenJob], final: Bool = false
    ) -> JobLedger.Generation? {
        let partition = checkpoint.partitionKey
        if !final, let last = written[partition], last.hasSameProgress(as: checkpoint) { return nil }
        written[partition] = checkpoint
        let sequence = nextSequence
        nextSequence += 1
        unacknowledged[sequence] = (partition, jobs)
        if final { finalWrites[partition] = sequence }
        return sequence
    }

    /// Kafka answered the write `sequence`: the jobs it recorded, to confirm when it succeeded.
    /// A refused write makes its partition's next checkpoint be written whether it moved or not
    /// (the lost one may have been the one the next owner needs).
    mutating func onAnswered(_ sequence: JobLedger.Generation, succeeded: Bool) -> [JobLedger.WrittenJob] {
        guard let (partition, jobs) = unacknowledged.removeValue(forKey: sequence) else { return [] }
        if finalWrites[partition] == sequence {
            finalWrites[partition] = nil
            if !succeeded { finalRefused = true }
        }
        guard succeeded else {
            written[partition] = nil
            return []
        }
        return jobs
    }

    /// Whether a write of `partition`'s checkpoint waits for Kafka.
    func isWriting(_ partition: SourcePosition.Partition) -> Bool {
        unacknowledged.values.contains { $0.0 == partition }
    }

    // MARK: Final checkpoints

    /// Whether `partitions` still need their final checkpoint (a revoke asks once they settled).
    func needsFinalWrite(_ partitions: Set<SourcePosition.Partition>) -> Bool {
        !partitions.isSubset(of: finalAsked)
    }

    /// The final checkpoints of `partitions` were written (those with anything to record);
    /// `drain`: every partition's, by a drain.
    mutating func onFinalWritesIssued(_ partitions: Set<SourcePosition.Partition>, drain: Bool) {
        finalAsked.formUnion(partitions)
        if drain { drainCheckpointed = true }
    }

    /// Whether a drain's final checkpoints were written and every one acknowledged.
    var drainCheckpointsConfirmed: Bool { drainCheckpointed && finalWrites.isEmpty && !finalRefused }

    /// Whether a final checkpoint of any of `partitions` still waits for Kafka.
    func awaitsFinalWrite(in partitions: Set<SourcePosition.Partition>) -> Bool {
        !finalWrites.isEmpty && finalWrites.keys.contains { partitions.contains($0) }
    }

    /// Partitions given up: their last written checkpoints are forgotten, so a later owner here
    /// writes afresh.
    mutating func onForget(_ partitions: Set<SourcePosition.Partition>) {
        for partition in partitions { written[partition] = nil }
        finalAsked.subtract(partitions)
    }

    // MARK: Waiting for confirmation

    /// A job waits for its unconfirmed sends to be confirmed; true when none waited before.
    mutating func onWaiting(now: Instant) -> Bool {
        guard waitingSince == nil else { return false }
        waitingSince = now
        return true
    }

    /// A checkpoint was acknowledged: how long a job had waited for one, if any did (the pump
    /// runs again and waits anew if it must).
    mutating func onConfirmed(now: Instant) -> Duration? {
        guard let since = waitingSince else { return nil }
        waitingSince = nil
        return since.duration(to: now)
    }
}
