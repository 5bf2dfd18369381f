/// How far one open job of a partition got: the notifications in `done` (indexes among its valid
/// tokens, half-open ranges) are answered and their records acknowledged, so a worker that reads
/// the job again sends only the rest. It applies only to the job it names (offset and id both
/// match): a stale one costs duplicates, never a notification.
package struct JobCheckpoint: Sendable, Hashable {
    /// The job's offset in its partition.
    package var offset: Int64
    package var jobID: String
    /// Ascending, disjoint ranges of done notifications.
    package var done: [Range<Int>]

    package init(offset: Int64, jobID: String, done: [Range<Int>]) {
        self.offset = offset
        self.jobID = jobID
        self.done = done
    }

    /// Notifications the ranges cover.
    package var doneCount: Int { done.reduce(0) { $0 + $1.count } }
}
