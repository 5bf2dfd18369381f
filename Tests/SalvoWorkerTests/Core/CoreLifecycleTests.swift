import SalvoTestSupport
import Testing

@testable import SalvoWorker

/// The core's lifecycle as timelines: a drain hands its held work off once nothing is in flight,
/// ends once every record is acknowledged, and its deadline ends it whatever is left.
@Suite struct CoreLifecycleTests {
    typealias Lifecycle = CoreLifecycle<Int, ManualClock.Instant>

    @Test func aDrainHandsOffOnceIdleAndEndsOnceRecordsAreAcknowledged() {
        let clock = ManualClock()
        var lifecycle = Lifecycle()
        #expect(lifecycle.isRunning)
        #expect(
            lifecycle.onBeginDrain(1, budget: .seconds(5), now: clock.now)
                == .start(deadline: clock.now.advanced(by: .seconds(5))))
        #expect(!lifecycle.isRunning && !lifecycle.isFinished)
        #expect(lifecycle.onWorkSettled(idle: false) == false, "work is in flight")
        #expect(lifecycle.onRecordsSettled(pending: 0) == .none, "nothing pending, but nothing handed off yet")
        clock.advance(by: .milliseconds(100))
        #expect(lifecycle.onWorkSettled(idle: true) == true, "nothing in flight: hand the held work off")
        #expect(lifecycle.onWorkSettled(idle: true) == false, "only once per drain")
        #expect(lifecycle.onRecordsSettled(pending: 3) == .none, "the hand-off's records are not acknowledged yet")
        #expect(lifecycle.onRecordsSettled(pending: 0) == .checkpoint, "acknowledged: write the final checkpoints")
        #expect(lifecycle.onRecordsSettled(pending: 2) == .none, "the checkpoints are not acknowledged yet")
        #expect(lifecycle.onRecordsSettled(pending: 0) == .finish(1), "everything acknowledged: the drain ends")
        #expect(lifecycle.isFinished)
        #expect(lifecycle.onDeadline() == .none, "a finished drain's deadline does nothing")
    }

    @Test func theDeadlineEndsADrainWithWorkInFlight() {
        let clock = ManualClock()
        var lifecycle = Lifecycle()
        _ = lifecycle.onBeginDrain(7, budget: .seconds(1), now: clock.now)
        #expect(lifecycle.onWorkSettled(idle: false) == false)
        clock.advance(by: .seconds(1))
        #expect(lifecycle.onDeadline() == .finish(7))
        #expect(lifecycle.onWorkSettled(idle: true) == false, "finished: nothing more is handed off")
        #expect(lifecycle.onRecordsSettled(pending: 0) == .none, "finished once only")
    }

    @Test func aSecondDrainIsAnsweredAtOnce() {
        let clock = ManualClock()
        var lifecycle = Lifecycle()
        _ = lifecycle.onBeginDrain(1, budget: .seconds(1), now: clock.now)
        #expect(lifecycle.onBeginDrain(2, budget: .seconds(1), now: clock.now) == .answer(2), "already draining")
        _ = lifecycle.onDeadline()
        #expect(lifecycle.onBeginDrain(3, budget: .seconds(1), now: clock.now) == .answer(3), "finished")
    }

    /// A revoke during a drain: the revoke's barrier waits for the in-flight work like the drain
    /// does, and both end once it is answered and the records acknowledged.
    @Test func aRevokeDuringADrainEndsWithIt() {
        let clock = ManualClock()
        let partition = SourcePosition.Partition(topic: "jobs", partition: 0)
        var lifecycle = Lifecycle()
        var commits = CommitControl<Int, ManualClock.Instant>(
            bound: 100, commitInterval: .milliseconds(250), priorityTopic: "users", now: clock.now)
        _ = lifecycle.onBeginDrain(1, budget: .seconds(5), now: clock.now)
        var unsettled: Set<SourcePosition.Partition> = [partition]
        commits.onRevoking([partition], done: 2)
        #expect(commits.isRevoking(partition))
        #expect(commits.onRevokeCheck { unsettled.isDisjoint(with: $0) }.waiting, "its job is in flight")
        #expect(lifecycle.onWorkSettled(idle: false) == false)
        clock.advance(by: .milliseconds(20))
        #expect(lifecycle.onWorkSettled(idle: true) == true, "answered: the drain hands its held work off")
        #expect(lifecycle.onRecordsSettled(pending: 1) == .none, "the hand-off record is pending")
        #expect(commits.onRevokeCheck { unsettled.isDisjoint(with: $0) }.waiting, "its record is pending too")
        unsettled = []
        let check = commits.onRevokeCheck { unsettled.isDisjoint(with: $0) }
        #expect(check.finished == [2] && !check.waiting)
        #expect(lifecycle.onRecordsSettled(pending: 0) == .checkpoint)
        #expect(lifecycle.onRecordsSettled(pending: 0) == .finish(1), "the drain ends with the revoke")
        #expect(commits.isRevoking(partition), "until the partitions are given up")
        #expect(commits.onRevoked([partition]).finished.isEmpty, "its barrier already ended")
        #expect(!commits.isRevoking(partition))
    }
}
