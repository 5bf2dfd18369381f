import Testing

@testable import SalvoWorker

/// `SourcePosition` hashes for `Set` and `Dictionary` without a `Hasher` (`_rawHashValue`): these
/// check the tables still find, keep apart and remove positions that share partitions, offsets or
/// topics, the cases a worker's ledger and rejected set hold.
@Suite struct SourcePositionHashingTests {
    static let topics = ["salvo.jobs", "salvo.jobs.priority", "salvo.jobs.retry"]

    /// Every (topic, partition, offset) of three topics × 12 partitions × 400 offsets: 14,400
    /// positions, many equal in everything but their topic.
    static var positions: [SourcePosition] {
        topics.flatMap { topic in
            (0..<12).flatMap { partition in
                (0..<400).map { SourcePosition(topic: topic, partition: Int32(partition), offset: Int64(1_000 + $0)) }
            }
        }
    }

    @Test func aSetKeepsPositionsThatDifferOnlyInTheirTopicApart() {
        let positions = Self.positions
        var set = Set(positions)
        #expect(set.count == positions.count)
        for position in positions { #expect(set.contains(position)) }
        let absent = SourcePosition(topic: "salvo.jobs.other", partition: 3, offset: 1_200)
        #expect(!set.contains(absent))
        // Removing every second position leaves exactly the others findable.
        for (index, position) in positions.enumerated() where index.isMultiple(of: 2) { set.remove(position) }
        #expect(set.count == positions.count / 2)
        for (index, position) in positions.enumerated() {
            #expect(set.contains(position) == !index.isMultiple(of: 2))
        }
    }

    @Test func theLedgerOpensAndCompletesInterleavedJobsOfSeveralTopics() {
        var ledger = JobLedger()
        let positions = Self.positions
        for position in positions { #expect(ledger.open(position, notifications: 1) == .none) }
        #expect(ledger.openJobs == positions.count)
        // Complete them back to front (removals in the middle of probe runs), then check none is left.
        for position in positions.reversed() {
            let generation = ledger.generation(of: position)
            #expect(generation != 0)
            #expect(ledger.notificationFinished(position, generation: generation) == .completed(position))
            #expect(!ledger.isOpen(position))
        }
        #expect(ledger.openJobs == 0)
    }

    @Test func theRawHashIsStableForEqualPositionsAndVariesWithTheSeed() {
        let position = SourcePosition(topic: "salvo.jobs", partition: 7, offset: 123_456)
        let copy = SourcePosition(topic: "salvo.jobs", partition: 7, offset: 123_456)
        #expect(position._rawHashValue(seed: 42) == copy._rawHashValue(seed: 42))
        #expect(position._rawHashValue(seed: 42) != position._rawHashValue(seed: 43))
        // Consecutive offsets spread over the low bits a table's buckets use.
        let buckets = Set(
            (0..<1_024).map { SourcePosition(topic: "t", partition: 0, offset: $0)._rawHashValue(seed: 0) & 1_023 })
        #expect(buckets.count > 600)
    }
}
