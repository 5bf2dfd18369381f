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

    /// What `Set` and `Dictionary` call instead of ``hash(into:)``: the same two fields through a
    /// multiply-xorshift mix, without a `Hasher`. Seeding, combining and finalizing a SipHash for
    /// every lookup was ~200 instructions, and removing a ledger entry re-hashes the entries
    /// after it in its probe run: ~1,000 per per-user push in all. Offsets are not chosen by
    /// anyone who could aim at collisions; the per-table seed still varies the layout. (The
    /// standard library names this requirement with its underscore.)
    // swift-format-ignore: NoLeadingUnderscores
    package func _rawHashValue(seed: Int) -> Int {
        var mixed = UInt64(bitPattern: offset) &* 0x9E37_79B9_7F4A_7C15
        mixed ^= UInt64(UInt32(bitPattern: partition)) ^ UInt64(UInt(bitPattern: seed))
        mixed = (mixed ^ (mixed >> 32)) &* 0xD6E8_FEB8_6659_FD93
        return Int(Int64(bitPattern: mixed ^ (mixed >> 32)))
    }
}
