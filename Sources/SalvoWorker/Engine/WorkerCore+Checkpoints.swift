/// Job checkpoints (``JobCheckpoint``): once per checkpoint interval, the done prefix of each
/// partition's lowest open job goes to the progress topic when it moved, so a worker that reads
/// the job again after a crash or a lost assignment skips what was done.
extension WorkerCore {
    /// From the statistics timer. Due times advance by the interval from the last due time, not
    /// from the tick that wrote: measuring from the tick would add up to a tick (50 ms) to every
    /// interval, and what a crash re-sends grows with the checkpoint's age.
    func writeCheckpointsIfDue() {
        guard checkpoints.topic != nil, phase != .finished else { return }
        let now = clock.now
        guard now >= checkpointsDueAt else { return }
        checkpointsDueAt = checkpointsDueAt.advanced(by: configuration.checkpointInterval)
        // A stalled loop skips the missed writes instead of catching up with a burst of them.
        if checkpointsDueAt <= now { checkpointsDueAt = now.advanced(by: configuration.checkpointInterval) }
        writeCheckpoints()
    }

    /// Writes the checkpoints of `partitions` (all, by default) that changed since last written.
    func writeCheckpoints(of partitions: Set<SourcePosition.Partition>? = nil) {
        guard let topic = checkpoints.topic else { return }
        for checkpoint in ledger.checkpoints(where: { partitions?.contains($0) ?? true }) {
            let partition = checkpoint.partitionKey
            guard writtenCheckpoints[partition] != checkpoint else { continue }
            writtenCheckpoints[partition] = checkpoint
            statistics.checkpointsWritten += 1
            let position = SourcePosition(
                topic: checkpoint.topic, partition: checkpoint.partition, offset: checkpoint.offset)
            publish(
                PendingRecord(
                    kind: .progress, topic: topic, record: checkpoint.record(group: checkpoints.group(partition)),
                    source: position,
                    generation: 0))
        }
    }
}
