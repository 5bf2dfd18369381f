/// Where a Kafka record came from. It identifies a job for as long as the worker holds it (the
/// ledger's key, the position whose offset is committed once the job is done) and is written into
/// dead letters so an operator can find the original.
package struct SourcePosition: Sendable, Hashable, CustomStringConvertible {
    package var topic: String
    package var partition: Int32
    package var offset: Int64

    package init(topic: String, partition: Int32, offset: Int64) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
    }

    package var description: String { "\(topic)/\(partition)@\(offset)" }

    /// Partition and offset only. Positions key the ledger, the commit tracking and the
    /// rejected-job set, a few lookups per job, and hashing the topic's text made those lookups a
    /// measurable share of a per-user push. Equal positions still hash equal; positions that differ
    /// only in their topic (a worker reads three) share a bucket and `==` tells them apart.
    package func hash(into hasher: inout Hasher) {
        hasher.combine(partition)
        hasher.combine(offset)
    }
}
