/// The core's link to partition checkpoints (``PartitionCheckpoint``): where it looks up the
/// checkpoint of a partition it reads (the engine's follower of the progress topic), where it
/// learns what its consumers completed beyond their commits, and whether and where it writes its
/// own. Tests give the core a dictionary or nothing.
struct CheckpointAccess: Sendable {
    /// The latest checkpoint recorded for a partition, if any.
    var lookup: @Sendable (SourcePosition.Partition) -> PartitionCheckpoint?
    /// The newest `written_at_ms` among the checkpoints of `lane`'s consumer group that record
    /// offsets: a record produced after it cannot be complete in any of them, so its intake skips
    /// the lookup (a per-user push pays one atomic load, not a hashed look-up).
    var newestWrite: @Sendable (Lane) -> Int64 = { _ in .max }
    /// The progress topic and the consumer group of each lane's partitions; nil: no checkpoints
    /// are written (the topic is missing, or a test).
    var topic: String?
    var group: @Sendable (SourcePosition.Partition) -> String
    /// What the lane consumers completed beyond their commits, per partition: `nil` asks for the
    /// campaign consumer's partitions (the jobs and retry topics, written every interval), a set
    /// for those partitions of either consumer (a revoke's or a drain's final checkpoints).
    var offsets: @Sendable (Set<SourcePosition.Partition>?) -> [SourcePosition.Partition: PartitionCheckpoint.Offsets] =
        { _ in [:] }

    /// What both lane consumers completed beyond their commits, on every partition they track
    /// (a drain's final checkpoints).
    var allOffsets: @Sendable () -> [SourcePosition.Partition: PartitionCheckpoint.Offsets] = { [:] }

    static let none = CheckpointAccess(lookup: { _ in nil }, newestWrite: { _ in .min }, topic: nil, group: { _ in "" })
}
