import SalvoTestSupport
import Testing

@testable import SalvoKafka

@Suite struct KafkaConsumerStateMachineTests {
    typealias Machine = KafkaConsumer.StateMachine<Int, ManualClock>

    let p0 = KafkaTopicPartition(topic: "t", partition: 0)
    let p1 = KafkaTopicPartition(topic: "t", partition: 1)
    let clock = ManualClock()

    func message(_ partition: KafkaTopicPartition, _ offset: Int64) -> KafkaConsumerMessage {
        KafkaConsumerMessage(
            topicPartition: partition, offset: offset, key: nil, value: [1], headers: [], timestampMilliseconds: nil)
    }

    func makeMachine(capacity: Int = 4) -> Machine {
        var machine = Machine(capacity: capacity, commitInterval: .seconds(1), now: clock.now)
        _ = machine.assigned([p0, p1])
        _ = machine.tick(now: clock.now)
        return machine
    }

    @Test func messageGoesStraightToAWaitingIterator() {
        var machine = makeMachine()
        #expect(machine.next(id: 1, waiter: 7).result == .wait)
        #expect(machine.receive(message(p0, 0)) == 7)
        #expect(machine.bufferedCount == 0)
        #expect(machine.pop().result == .wait)
    }

    @Test func aBatchFeedsWaitersFirstThenTheBuffer() {
        var machine = makeMachine()
        #expect(machine.next(id: 1, waiter: 5).result == .wait)
        let deliveries = machine.receive([message(p0, 0), message(p0, 1), message(p1, 0)])
        #expect(deliveries.map(\.0) == [5])
        #expect(deliveries.map(\.1) == [message(p0, 0)])
        #expect(machine.pop().result == .message(message(p0, 1)))
        #expect(machine.pop().result == .message(message(p1, 0)))
        #expect(machine.tracker.outstandingCount == 3, "all tracked until marked done")
    }

    @Test func messagesOfUnassignedPartitionsAreDropped() {
        var machine = makeMachine()
        let stranger = KafkaTopicPartition(topic: "t", partition: 9)
        #expect(machine.receive(message(stranger, 0)) == nil)
        #expect(machine.bufferedCount == 0)
        #expect(machine.markDone(0, in: stranger) == .unknownPartition)
    }

    @Test func fullBufferStopsTakingMessagesUntilHalfEmpty() {
        var machine = makeMachine(capacity: 4)
        #expect(machine.tick(now: clock.now).messageLimit == 4)
        for offset in Int64(0)..<3 { _ = machine.receive(message(p0, offset)) }
        #expect(machine.tick(now: clock.now).messageLimit == 1, "only as many as fit")
        _ = machine.receive(message(p0, 3))
        #expect(machine.isBackpressured)
        let full = machine.tick(now: clock.now)
        #expect(full.messageLimit == 0)
        #expect(full.pause.isEmpty, "no pause: librdkafka's bounded prefetch stops fetching by itself")

        let first = machine.pop()
        #expect(first.result == .message(message(p0, 0)))
        #expect(!first.wakeLoop)
        #expect(machine.tick(now: clock.now).messageLimit == 0, "hysteresis: wait for half empty")
        let second = machine.pop()
        #expect(second.result == .message(message(p0, 1)))
        #expect(second.wakeLoop, "the loop must start taking messages promptly")
        #expect(machine.tick(now: clock.now).messageLimit == 2)
    }

    @Test func pausedPartitionIsHeldBackAndResumedInOrder() {
        var machine = makeMachine()
        _ = machine.receive(message(p0, 0))
        _ = machine.receive(message(p1, 0))
        _ = machine.receive(message(p0, 1))
        machine.pause([p0])
        #expect(machine.tick(now: clock.now).pause == [p0])
        // A message fetched before librdkafka applied the pause is parked too.
        _ = machine.receive(message(p0, 2))
        #expect(machine.pop().result == .message(message(p1, 0)))
        #expect(machine.pop().result == .wait)
        #expect(machine.next(id: 1, waiter: 11).result == .wait)

        let deliveries = machine.resume([p0])
        #expect(deliveries.map(\.0) == [11])
        #expect(deliveries.map(\.1) == [message(p0, 0)])
        let resumed = machine.tick(now: clock.now)
        #expect(resumed.resume == [p0])
        #expect(resumed.pause.isEmpty)
        #expect(machine.pop().result == .message(message(p0, 1)))
        #expect(machine.pop().result == .message(message(p0, 2)))
    }

    @Test func pauseAllAppliesToPartitionsAssignedLater() {
        var machine = makeMachine()
        machine.pauseAll()
        #expect(machine.tick(now: clock.now).pause == [p0, p1])
        let p2 = KafkaTopicPartition(topic: "t", partition: 2)
        _ = machine.assigned([p2])
        #expect(machine.tick(now: clock.now).pause == [p2])
        _ = machine.receive(message(p2, 0))
        #expect(machine.pop().result == .wait)
        #expect(machine.resumeAll().isEmpty)
        #expect(machine.tick(now: clock.now).resume == [p0, p1, p2])
        #expect(machine.pop().result == .message(message(p2, 0)))
    }

    @Test func commitsAdvancedWatermarksOnSchedule() {
        var clock = clock
        var machine = makeMachine()
        _ = machine.receive(message(p0, 0))
        _ = machine.receive(message(p0, 1))
        _ = machine.receive(message(p0, 2))
        _ = machine.markDone(0, in: p0)
        _ = machine.markDone(2, in: p0)
        #expect(machine.tick(now: clock.now).commit == nil, "not due yet")
        clock.advance(by: .seconds(1))
        #expect(machine.tick(now: clock.now).commit == [p0: 1])
        machine.commitFinished([p0: 1], succeeded: true)
        clock.advance(by: .seconds(1))
        #expect(machine.tick(now: clock.now).commit == nil, "nothing advanced")
        _ = machine.markDone(1, in: p0)
        clock.advance(by: .seconds(1))
        #expect(machine.tick(now: clock.now).commit == [p0: 3])
    }

    @Test func failedCommitIsRetried() {
        var clock = clock
        var machine = makeMachine()
        _ = machine.receive(message(p1, 5))
        _ = machine.markDone(5, in: p1)
        clock.advance(by: .seconds(1))
        #expect(machine.tick(now: clock.now).commit == [p1: 6])
        machine.commitFinished([p1: 6], succeeded: false)
        clock.advance(by: .seconds(1))
        #expect(machine.tick(now: clock.now).commit == [p1: 6])
    }

    @Test func requestedCommitRunsAtOnceEvenWithNothingToDo() {
        var machine = makeMachine()
        machine.requestCommit()
        #expect(machine.tick(now: clock.now).commit == [:])
    }

    @Test func revokeCommitsDoneWatermarkAndForgetsThePartition() {
        var machine = makeMachine()
        _ = machine.receive(message(p0, 0))
        _ = machine.receive(message(p0, 1))
        _ = machine.receive(message(p1, 0))
        _ = machine.markDone(0, in: p0)
        #expect(machine.revoking([p0]) == [p0: 1])
        #expect(machine.revoked([p0]) == [p0])
        #expect(machine.assignment == [p1])
        #expect(machine.bufferedCount == 1, "the revoked partition's buffered messages are dropped")
        #expect(machine.markDone(1, in: p0) == .unknownPartition, "late completion is ignored")
        #expect(machine.pop().result == .message(message(p1, 0)))
        #expect(machine.receive(message(p0, 2)) == nil, "stale fetches of the revoked partition are dropped")
        #expect(machine.bufferedCount == 0)
    }

    @Test func failedRevokeCommitMakesAReassignmentStartAtTheDoneWatermark() {
        var machine = makeMachine()
        _ = machine.receive(message(p0, 7))
        _ = machine.markDone(7, in: p0)
        let offsets = machine.revoking([p0, p1])
        #expect(offsets == [p0: 8])
        _ = machine.revoked([p0, p1], uncommitted: offsets)
        let back = machine.assigned([p0])
        #expect(back.added == [p0])
        #expect(back.startOffsets == [p0: 8])
        _ = machine.revoked([p0])
        #expect(machine.assigned([p0]).startOffsets.isEmpty, "only the very next assignment uses it")
    }

    @Test func aReassignmentStartingAtAnUncommittedWatermarkCommitsItWithoutNewMessages() {
        var machine = makeMachine()
        _ = machine.receive(message(p0, 7))
        _ = machine.markDone(7, in: p0)
        _ = machine.revoked([p0, p1], uncommitted: machine.revoking([p0, p1]))
        let back = machine.assigned([p0])
        machine.starting(at: back.startOffsets)
        clock.advance(by: .seconds(1))
        #expect(machine.tick(now: clock.now).commit == [p0: 8], "the group's offset catches up although p0 stays idle")
        machine.commitFinished([p0: 8], succeeded: true)
        _ = machine.receive(message(p0, 8))
        clock.advance(by: .seconds(1))
        #expect(machine.tick(now: clock.now).commit == nil, "offset 8 is outstanding: nothing new to commit")
        _ = machine.markDone(8, in: p0)
        clock.advance(by: .seconds(1))
        #expect(machine.tick(now: clock.now).commit == [p0: 9])
    }

    @Test func uncommittedWatermarksOfSeveralRevokesAreKeptTogether() {
        var machine = makeMachine()
        _ = machine.revoked([p0], uncommitted: [p0: 3])
        _ = machine.revoked([p1], uncommitted: [p1: 9])
        #expect(machine.assigned([p0, p1]).startOffsets == [p0: 3, p1: 9])
    }

    @Test func closeFinishesWaitersCommitsThenLeaves() {
        var machine = makeMachine()
        _ = machine.receive(message(p0, 0))
        _ = machine.receive(message(p0, 1))
        _ = machine.markDone(0, in: p0)
        #expect(machine.pop().result == .message(message(p0, 0)))
        #expect(machine.pop().result == .message(message(p0, 1)))
        #expect(machine.next(id: 1, waiter: 3).result == .wait)
        #expect(machine.requestClose(now: clock.now, timeout: .seconds(5)) == [3])
        #expect(machine.pop().result == .finished)
        let action = machine.tick(now: clock.now)
        #expect(action == .init(commit: [p0: 1], startLeaving: true))
        #expect(machine.isLeaving)
        #expect(machine.tick(now: clock.now) == .init())
        machine.didLeave()
        #expect(machine.tick(now: clock.now) == .init(stop: true))
    }

    @Test func leavingStopsAtTheCloseDeadline() {
        var clock = clock
        var machine = makeMachine()
        _ = machine.requestClose(now: clock.now, timeout: .seconds(5))
        _ = machine.tick(now: clock.now)
        clock.advance(by: .seconds(4))
        #expect(machine.tick(now: clock.now) == .init())
        clock.advance(by: .seconds(1))
        #expect(machine.tick(now: clock.now) == .init(stop: true))
    }

    @Test func fatalErrorFailsIteration() {
        var machine = makeMachine()
        #expect(machine.next(id: 1, waiter: 4).result == .wait)
        let error = KafkaError(code: .fatal, message: "fenced", isFatal: true)
        #expect(machine.fail(error, now: clock.now, timeout: .seconds(1)) == [4])
        #expect(machine.pop().result == .failed(error))
    }

    @Test func cancelledWaiterIsRemoved() {
        var machine = makeMachine()
        #expect(machine.next(id: 1, waiter: 10).result == .wait)
        #expect(machine.next(id: 2, waiter: 20).result == .wait)
        #expect(machine.cancel(id: 1) == 10)
        #expect(machine.cancel(id: 1) == nil)
        #expect(machine.receive(message(p0, 0)) == 20)
    }
}

/// Partitions started by time skip records older than their cutoff, as done.
@Suite struct KafkaConsumerStartCutoffTests {
    typealias Machine = KafkaConsumer.StateMachine<Int, ManualClock>
    let partition = KafkaTopicPartition(topic: "t", partition: 0)

    func message(_ offset: Int64, at timestamp: Int64?) -> KafkaConsumerMessage {
        KafkaConsumerMessage(
            topicPartition: partition, offset: offset, key: nil, value: [1], headers: [],
            timestampMilliseconds: timestamp)
    }

    @Test func olderRecordsAreDoneWithoutBeingHandedOut() {
        let clock = ManualClock()
        var machine = Machine(capacity: 8, commitInterval: .seconds(1), now: clock.now)
        _ = machine.assigned([partition])
        machine.starting(at: [partition: 0])
        machine.skipping(olderThan: [partition: 1_000])
        _ = machine.receive(message(0, at: 10))
        _ = machine.receive(message(1, at: 999))
        #expect(machine.bufferedCount == 0 && machine.skippedBeforeStart == 2)
        #expect(machine.tracker.committableOffset(for: partition) == 2, "skipped records are committed past")
        _ = machine.receive(message(2, at: 1_000))
        // After the first newer record, timestamps no longer matter (CreateTime is not monotonic).
        _ = machine.receive(message(3, at: 5))
        #expect(machine.bufferedCount == 2 && machine.skippedBeforeStart == 2)
    }
}
