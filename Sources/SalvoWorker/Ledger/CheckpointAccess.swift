/// The core's link to job checkpoints (``JobCheckpoint``): where it looks up the checkpoint of a
/// job it opens (the engine's follower of the progress topic), and whether and where it writes its
/// own. Tests give the core a dictionary or nothing.
struct CheckpointAccess: Sendable {
    /// The latest checkpoint recorded for a partition, if any.
    var lookup: @Sendable (SourcePosition.Partition) -> JobCheckpoint?
    /// The progress topic and the consumer group of each lane's partitions; nil: no checkpoints
    /// are written (the topic is missing, or a test).
    var topic: String?
    var group: @Sendable (SourcePosition.Partition) -> String

    static let none = CheckpointAccess(lookup: { _ in nil }, topic: nil, group: { _ in "" })
}
