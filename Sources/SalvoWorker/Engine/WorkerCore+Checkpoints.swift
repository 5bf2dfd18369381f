/// Job checkpoints (``JobCheckpoint``): once per checkpoint interval, the done prefix of each
/// partition's lowest open job goes to the progress topic when it moved, so a worker that reads
/// the job again after a crash or a lost assignment skips what was done.
extension WorkerCore {
    /// From the statistics timer (``CheckpointSchedule/onTick(now:)``).
    func writeCheckpointsIfDue() {
        guard !lifecycle.isFinished, checkpointing.onTick(now: clock.now) else { return }
        writeCheckpoints()
    }

    /// Writes the checkpoints of `partitions` (all, by default) that changed since last written.
    func writeCheckpoints(of partitions: Set<SourcePosition.Partition>? = nil) {
        guard let topic = checkpoints.topic else { return }
        for checkpoint in ledger.checkpoints(where: { partitions?.contains($0) ?? true })
        where checkpointing.onCheckpoint(checkpoint) {
            statistics.checkpointsWritten += 1
            let position = SourcePosition(
                topic: checkpoint.topic, partition: checkpoint.partition, offset: checkpoint.offset)
            publish(
                PendingRecord(
                    kind: .progress, topic: topic,
                    record: checkpoint.record(group: checkpoints.group(checkpoint.partitionKey)), source: position,
                    generation: 0))
        }
    }

    /// Where checkpoints are read and written.
    var checkpoints: CheckpointAccess { checkpointing.access }
}
