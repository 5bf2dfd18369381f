import Metrics
import SalvoKafka
import SalvoPrimitives

/// Partition checkpoints (``PartitionCheckpoint``): which offsets beyond the commit are complete,
/// and how far each open job of several tokens got, so a worker that reads a partition again
/// after a crash, a lost assignment or a failed commit skips what was done. Written every
/// checkpoint interval, when a job's done count grew by `kafka.checkpoint_notifications`, when a
/// job waits for its unconfirmed sends, and before a revoke or a drain gives partitions up.
extension WorkerCore {
    /// Which partitions a write covers.
    enum CheckpointScope {
        /// The campaign consumer's partitions and every partition with an open job's progress
        /// (the interval's writes).
        case campaign
        /// These partitions (a count trigger, a waiting job, a revoke).
        case partitions(Set<SourcePosition.Partition>)
        /// Every partition either consumer tracks (a drain).
        case all
    }

    /// From the statistics timer (``CheckpointSchedule/onTick(now:)``).
    func writeCheckpointsIfDue() {
        guard !lifecycle.isFinished, checkpointing.onTick(now: clock.now) else { return }
        writeCheckpoints(.campaign)
    }

    /// Writes the checkpoints of the partitions in `scope` that changed since last written;
    /// `final`: whether or not they changed, and remembered until Kafka acknowledged them.
    func writeCheckpoints(_ scope: CheckpointScope, final: Bool = false) {
        guard let topic = checkpoints.topic else { return }
        let selected: Set<SourcePosition.Partition>?
        switch scope {
        case .campaign, .all: selected = nil
        case .partitions(let partitions): selected = partitions
        }
        let jobs = ledger.takeJobCheckpoints(where: { selected?.contains($0) ?? true })
        let offsets: [SourcePosition.Partition: PartitionCheckpoint.Offsets]
        switch scope {
        case .campaign: offsets = checkpoints.offsets(nil)
        case .partitions(let partitions): offsets = checkpoints.offsets(partitions)
        case .all: offsets = checkpoints.allOffsets()
        }
        let now = UTCTimestamp.now().millisecondsSince1970
        for partition in Set(jobs.keys).union(offsets.keys) {
            let written = jobs[partition] ?? []
            // Offsets matter only when some are complete beyond the commit.
            let complete = offsets[partition].flatMap { $0.doneCount > 0 ? $0 : nil }
            guard complete != nil || !written.isEmpty else { continue }
            let checkpoint = PartitionCheckpoint(
                topic: partition.topic, partition: partition.partition, offsets: complete,
                jobs: written.map(\.checkpoint), writtenAtMilliseconds: now)
            guard let sequence = checkpointing.onCheckpoint(checkpoint, jobs: written, final: final) else { continue }
            statistics.checkpointsWritten += 1
            publish(
                PendingRecord(
                    kind: .progress, topic: topic, record: checkpoint.record(group: checkpoints.group(partition)),
                    source: SourcePosition(topic: partition.topic, partition: partition.partition, offset: 0),
                    generation: sequence))
        }
        if final {
            checkpointing.onFinalWritesIssued(selected ?? Set(jobs.keys).union(offsets.keys), drain: selected == nil)
        }
    }

    /// Kafka answered checkpoint write `sequence`: the jobs it recorded count as confirmed, and a
    /// job waiting for that may send again.
    func checkpointAnswered(_ sequence: JobLedger.Generation, succeeded: Bool) {
        for job in checkpointing.onAnswered(sequence, succeeded: succeeded) {
            ledger.confirm(job.generation, done: job.done)
        }
        if let waited = checkpointing.onConfirmed(now: clock.now) {
            metrics.checkpointWaitSeconds.increment(by: Double(waited.nanoseconds) / 1e9)
            schedulePump()
        }
    }

    /// The pump met a job whose unconfirmed sends reached `kafka.max_unconfirmed_sends`: it waits
    /// for Kafka to acknowledge a checkpoint naming more of it done, which is written now unless
    /// one is on its way.
    func waitForCheckpoint(of unit: DispatchUnit) {
        if checkpointing.onWaiting(now: clock.now) {
            statistics.checkpointWaits += 1
            metrics.checkpointWaits.increment()
        }
        let partition = unit.reference.source.partitionKey
        guard let progress = ledger.progress(unit.reference.ledgerGeneration), progress.unwritten > 0,
            !checkpointing.isWriting(partition)
        else { return }
        writeCheckpoints(.partitions([partition]))
    }

    /// The bound on a job's sends not yet covered by an acknowledged checkpoint
    /// (`kafka.max_unconfirmed_sends`; by default the window plus four count triggers). None
    /// without checkpoints: nothing would ever confirm them.
    var unconfirmedSendsBound: Int {
        guard checkpoints.topic != nil else { return .max }
        return configuration.maximumUnconfirmedSends ?? window + 4 * configuration.checkpointNotifications
    }

    /// Where checkpoints are read and written.
    var checkpoints: CheckpointAccess { checkpointing.access }
}
