/// Job checkpoints (``JobCheckpoint``): once per commit interval, the done prefix of each
/// partition's lowest open job goes to the progress topic when it moved, so a worker that reads
/// the job again after a crash or a lost assignment skips what was done.
extension WorkerCore {
    /// From the statistics timer.
    func writeCheckpointsIfDue() {
        guard checkpoints.topic != nil, phase != .finished else { return }
        let now = clock.now
        guard checkpointsWrittenAt.duration(to: now) >= configuration.commitInterval else { return }
        checkpointsWrittenAt = now
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
