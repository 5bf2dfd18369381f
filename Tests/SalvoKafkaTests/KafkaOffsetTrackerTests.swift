import SalvoKafka
import Testing

@Suite struct KafkaOffsetTrackerTests {
    let partition = KafkaTopicPartition(topic: "jobs", partition: 3)
    let other = KafkaTopicPartition(topic: "jobs", partition: 4)

    @Test func gapInCompletionHoldsTheWatermark() {
        var tracker = KafkaOffsetTracker()
        for offset in Int64(0)...4 { tracker.track(offset, in: partition) }
        for offset: Int64 in [0, 1, 3, 4] { #expect(tracker.markDone(offset, in: partition) == .marked) }
        #expect(tracker.committableOffset(for: partition) == 2)
        #expect(tracker.commitCandidates() == [partition: 2])
        #expect(tracker.outstandingCount(for: partition) == 1)

        #expect(tracker.markDone(2, in: partition) == .marked)
        #expect(tracker.committableOffset(for: partition) == 5)
        #expect(tracker.outstandingCount == 0)
    }

    @Test("progress beyond the commit: from the last commit (or the first offset) to the end, with what is still open")
    func progressBeyondTheCommit() {
        var tracker = KafkaOffsetTracker()
        #expect(tracker.progress(for: partition) == nil)
        for offset in Int64(10)...15 { tracker.track(offset, in: partition) }
        for offset: Int64 in [10, 11, 13, 15] { tracker.markDone(offset, in: partition) }
        #expect(tracker.progress(for: partition) == KafkaPartitionProgress(from: 10, to: 16, open: [12, 14]))
        tracker.didCommit([partition: 12])
        #expect(tracker.progress(for: partition) == KafkaPartitionProgress(from: 12, to: 16, open: [12, 14]))
        #expect(tracker.progress(for: partition)?.doneCount == 2)
        tracker.markDone(12, in: partition)
        tracker.markDone(14, in: partition)
        #expect(tracker.progress(for: partition) == KafkaPartitionProgress(from: 12, to: 16, open: []))
    }

    @Test func nothingDoneCommitsNothing() {
        var tracker = KafkaOffsetTracker()
        tracker.track(10, in: partition)
        tracker.track(11, in: partition)
        // The watermark is the first received offset: committing it would change nothing, but
        // it is still a valid candidate until the broker confirms it.
        #expect(tracker.committableOffset(for: partition) == 10)
        tracker.didCommit([partition: 10])
        #expect(tracker.commitCandidates().isEmpty)
        tracker.markDone(11, in: partition)
        #expect(tracker.commitCandidates().isEmpty, "11 is done but 10 is not")
    }

    @Test func aPartitionStartedAtADoneWatermarkOffersItForCommit() {
        var tracker = KafkaOffsetTracker()
        tracker.start(at: 42, in: partition)
        #expect(tracker.commitCandidates() == [partition: 42])
        tracker.didCommit([partition: 42])
        #expect(tracker.commitCandidates().isEmpty)
        tracker.track(42, in: partition)
        tracker.start(at: 7, in: partition)
        #expect(tracker.committableOffset(for: partition) == 42, "a tracked partition is left as it is")
        tracker.markDone(42, in: partition)
        #expect(tracker.commitCandidates() == [partition: 43])
    }

    @Test func offsetGapsFromCompactionDoNotBlock() {
        var tracker = KafkaOffsetTracker()
        for offset: Int64 in [5, 7, 20] { tracker.track(offset, in: partition) }
        tracker.markDone(7, in: partition)
        #expect(tracker.committableOffset(for: partition) == 5)
        tracker.markDone(5, in: partition)
        #expect(tracker.committableOffset(for: partition) == 20)
        tracker.markDone(20, in: partition)
        #expect(tracker.committableOffset(for: partition) == 21)
    }

    @Test func duplicatesAndUnknownOffsetsAreIgnored() {
        var tracker = KafkaOffsetTracker()
        tracker.track(0, in: partition)
        tracker.track(1, in: partition)
        #expect(tracker.markDone(1, in: partition) == .marked)
        #expect(tracker.markDone(1, in: partition) == .duplicate)
        #expect(tracker.markDone(99, in: partition) == .duplicate)
        #expect(tracker.markDone(-5, in: partition) == .duplicate)
        #expect(tracker.markDone(0, in: other) == .unknownPartition)
        #expect(tracker.committableOffset(for: partition) == 0)
    }

    @Test func revokedPartitionIsForgottenAndLateMarksAreIgnored() {
        var tracker = KafkaOffsetTracker()
        tracker.track(0, in: partition)
        tracker.track(0, in: other)
        tracker.markDone(0, in: other)
        tracker.remove([partition])
        #expect(tracker.markDone(0, in: partition) == .unknownPartition)
        #expect(tracker.commitCandidates() == [other: 1])
        #expect(tracker.trackedPartitions == [other])
        #expect(tracker.committableOffset(for: partition) == nil)
    }

    @Test func commitCandidatesOnlyAdvance() {
        var tracker = KafkaOffsetTracker()
        for offset in Int64(0)..<10 { tracker.track(offset, in: partition) }
        for offset in Int64(0)..<6 { tracker.markDone(offset, in: partition) }
        #expect(tracker.commitCandidates(in: [partition, other]) == [partition: 6])
        tracker.didCommit([partition: 6])
        tracker.didCommit([partition: 3])  // a late, older result
        #expect(tracker.committedOffset(for: partition) == 6)
        #expect(tracker.commitCandidates().isEmpty)
        tracker.markDone(6, in: partition)
        #expect(tracker.commitCandidates() == [partition: 7])
    }

    @Test func rewindForgetsOutstandingOffsetsFromThereOn() {
        var tracker = KafkaOffsetTracker()
        for offset in Int64(0)..<5 { tracker.track(offset, in: partition) }
        tracker.markDone(0, in: partition)
        tracker.markDone(3, in: partition)
        // A seek back to 2: offsets 2... arrive again.
        tracker.track(2, in: partition)
        #expect(tracker.outstandingCount(for: partition) == 2, "1 and the new 2")
        tracker.markDone(1, in: partition)
        #expect(tracker.committableOffset(for: partition) == 2)
        tracker.markDone(2, in: partition)
        #expect(tracker.committableOffset(for: partition) == 3)
    }

    @Test func hugeOffsetsInOrderKeepMemoryConstant() {
        var tracker = KafkaOffsetTracker()
        let base = Int64.max / 2
        for step in Int64(0)..<200_000 {
            tracker.track(base + step * 3, in: partition)
            tracker.markDone(base + step * 3, in: partition)
            #expect(tracker.outstandingCount <= 1)
            if tracker.outstandingCount > 1 { break }
        }
        #expect(tracker.committableOffset(for: partition) == base + 199_999 * 3 + 1)
    }

    @Test func memoryIsBoundedByUnfinishedMessagesEvenBehindAStuckOne() {
        var tracker = KafkaOffsetTracker()
        tracker.track(0, in: partition)  // never finishes
        for offset in Int64(1)...100_000 {
            tracker.track(offset, in: partition)
            tracker.markDone(offset, in: partition)
        }
        #expect(tracker.outstandingCount == 1)
        #expect(tracker.committableOffset(for: partition) == 0)
        tracker.markDone(0, in: partition)
        #expect(tracker.committableOffset(for: partition) == 100_001)
    }

    @Test func reverseCompletionOfALargeWindow() {
        var tracker = KafkaOffsetTracker()
        let count: Int64 = 10_000
        for offset in 0..<count { tracker.track(offset, in: partition) }
        for offset in stride(from: count - 1, through: 1, by: -1) {
            tracker.markDone(offset, in: partition)
        }
        #expect(tracker.committableOffset(for: partition) == 0)
        #expect(tracker.outstandingCount == 1)
        tracker.markDone(0, in: partition)
        #expect(tracker.committableOffset(for: partition) == count)
    }

    @Test func partitionsAreIndependent() {
        var tracker = KafkaOffsetTracker()
        tracker.track(0, in: partition)
        tracker.track(0, in: other)
        tracker.track(1, in: other)
        tracker.markDone(0, in: other)
        tracker.markDone(1, in: other)
        #expect(tracker.commitCandidates() == [partition: 0, other: 2])
    }

    @Test func samePartitionNumberOfAnotherTopicIsAnotherPartition() {
        var tracker = KafkaOffsetTracker()
        let retry = KafkaTopicPartition(topic: "retry", partition: 3)
        tracker.track(0, in: partition)
        tracker.track(0, in: retry)
        tracker.track(1, in: retry)
        // Alternating calls: each one must find its own partition, never the previous call's.
        #expect(tracker.markDone(1, in: retry) == .marked)
        #expect(tracker.markDone(0, in: partition) == .marked)
        #expect(tracker.markDone(1, in: retry) == .duplicate)
        #expect(tracker.commitCandidates() == [partition: 1, retry: 0])
    }

    @Test func removingAPartitionKeepsTheOthersIntact() {
        var tracker = KafkaOffsetTracker()
        let partitions = (0..<4).map { KafkaTopicPartition(topic: "jobs", partition: Int32($0)) }
        for (index, tracked) in partitions.enumerated() {
            for offset in Int64(0)...Int64(index) { tracker.track(offset, in: tracked) }
        }
        // Removing the first and a middle one moves others in the tracker's storage.
        tracker.remove([partitions[0], partitions[2]])
        #expect(tracker.trackedPartitions == [partitions[1], partitions[3]])
        #expect(tracker.markDone(0, in: partitions[2]) == .unknownPartition)
        #expect(tracker.markDone(0, in: partitions[3]) == .marked)
        #expect(tracker.markDone(1, in: partitions[1]) == .marked)
        tracker.track(4, in: partitions[3])
        #expect(tracker.commitCandidates() == [partitions[1]: 0, partitions[3]: 1])
        #expect(tracker.outstandingCount(for: partitions[3]) == 4)
        #expect(tracker.outstandingCount == 5)
        // A removed partition assigned again starts afresh.
        tracker.track(7, in: partitions[0])
        #expect(tracker.committableOffset(for: partitions[0]) == 7)
        #expect(tracker.markDone(7, in: partitions[0]) == .marked)
        #expect(tracker.committableOffset(for: partitions[0]) == 8)
    }
}
