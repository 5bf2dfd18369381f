import SalvoTestSupport
import Testing

@testable import SalvoWorker

/// Commit control as timelines: the gate closes while commits fail and the bound of completed work
/// is reached, reports each change once, resumes its waiters when it opens, and revokes end when
/// their partitions settle or are given up.
@Suite struct CommitControlTests {
    typealias Control = CommitControl<Int, ManualClock.Instant>
    static let jobs = SourcePosition.Partition(topic: "jobs", partition: 0)
    static let users = SourcePosition.Partition(topic: "users", partition: 0)

    static func control(_ clock: ManualClock) -> Control {
        Control(bound: 100, commitInterval: .milliseconds(100), priorityTopic: "users", now: clock.now)
    }

    @Test func failingCommitsCloseTheGateAtTheBoundAndASuccessOpensIt() {
        let clock = ManualClock()
        var control = Self.control(clock)
        #expect(control.onCommitFinished(.campaign, succeeded: false, now: clock.now) == .unchanged(closed: false))
        control.onJobCompleted(topic: "jobs", notificationsCompleted: 60)
        #expect(!control.isClosed, "60 of 100")
        control.onJobCompleted(topic: "users", notificationsCompleted: 90)
        #expect(!control.isClosed, "the 30 of the per-user consumer count for it, not for the failing one")
        control.onJobCompleted(topic: "jobs", notificationsCompleted: 130)
        #expect(control.isClosed, "100 of the failing consumer")
        control.onIntakeWaiting(1)
        control.onIntakeWaiting(2)
        #expect(
            control.onCommitFinished(.campaign, succeeded: false, now: clock.now)
                == Control.GateReport(closed: true, change: .closed(uncommitted: 100, bound: 100)),
            "the next report logs the closure")
        #expect(control.onCommitFinished(.campaign, succeeded: false, now: clock.now) == .unchanged(closed: true))
        clock.advance(by: .seconds(1))
        #expect(
            control.onCommitFinished(.campaign, succeeded: true, now: clock.now)
                == Control.GateReport(closed: false, change: .opened([1, 2])),
            "a successful commit opens the gate and resumes its waiters")
        #expect(!control.isClosed)
        #expect(control.onDrainReleasesWaiters().isEmpty, "the waiters were resumed once")
    }

    @Test func aCommitThatNeverAnswersIsOverdueAfterEightIntervalsAtLeastTwoSeconds() {
        let clock = ManualClock()
        var control = Self.control(clock)
        control.onJobCompleted(topic: "jobs", notificationsCompleted: 150)
        #expect(!control.isClosed, "no commit has failed")
        clock.advance(by: .seconds(1))
        #expect(control.onOverdueCheck(now: clock.now).isEmpty, "1 s: not overdue (at least 2 s)")
        clock.advance(by: .milliseconds(1_001))
        let reports = control.onOverdueCheck(now: clock.now)
        #expect(reports.count == 1 && reports.allSatisfy(\.closed))
        #expect(control.isClosed)
        clock.advance(by: .seconds(5))
        #expect(control.onOverdueCheck(now: clock.now) == [.unchanged(closed: true)], "still closed: no new closure")
        _ = control.onCommitFinished(.campaign, succeeded: true, now: clock.now)
        clock.advance(by: .seconds(1))
        control.onJobCompleted(topic: "jobs", notificationsCompleted: 300)
        #expect(control.onOverdueCheck(now: clock.now).isEmpty, "a commit succeeded 1 s ago")
    }

    @Test func givingUpPartitionsDropsTheirUncommittedCountAndEndsTheirRevokes() {
        let clock = ManualClock()
        var control = Self.control(clock)
        _ = control.onCommitFinished(.priority, succeeded: false, now: clock.now)
        control.onJobCompleted(topic: "users", notificationsCompleted: 100)
        #expect(control.isClosed)
        #expect(control.onCommitFinished(.priority, succeeded: false, now: clock.now).closed)
        control.onIntakeWaiting(9)
        control.onRevoking([Self.users], done: 1)
        control.onRevoking([Self.jobs], done: 2)
        #expect(control.isRevoking(Self.users) && control.isRevoking(Self.jobs))
        let revoked = control.onRevoked([Self.users])
        #expect(revoked.finished == [1], "the barrier that gave up waiting ends; the other waits")
        #expect(
            revoked.reports == [Control.GateReport(closed: false, change: .opened([9]))],
            "no commit can open the gate of a lost assignment: it opens now")
        #expect(!control.isRevoking(Self.users) && control.isRevoking(Self.jobs))
        let check = control.onRevokeCheck { _ in true }
        #expect(check.finished == [2] && !check.waiting)
    }

    /// Commits failing while the window is full: the gate closes mid-window, the answers still
    /// come back and free the window, but no new lane work fills it until a commit succeeds.
    @Test func commitsFailingWhileTheWindowIsFull() {
        let clock = ManualClock()
        var control = Self.control(clock)
        var window = DispatchWindow<ManualClock.Instant>(size: 20, queueDelayTarget: nil)
        _ = control.onCommitFinished(.campaign, succeeded: false, now: clock.now)
        var completed = 0
        var windows = 0
        // Each pump fills the window while the gate is open; every answer completes a job.
        for _ in 0..<10 {
            _ = window.onPumpStarted()
            let limit = window.onPumpPlanned(now: clock.now, priorityQueued: false)
            guard !control.isClosed else { break }
            while window.hasRoom(waiting: 0, limit: limit) { window.onSent() }
            windows += 1
            #expect(window.inFlight == 20, "the window is full")
            clock.advance(by: .milliseconds(10))
            for _ in 0..<20 {
                window.onAnswer()
                completed += 1
                control.onJobCompleted(topic: "jobs", notificationsCompleted: completed)
            }
            _ = window.onAnswered(urgent: false, waiting: 0)
        }
        #expect(windows == 5, "100 completed in five windows: the gate closes")
        #expect(window.inFlight == 0, "what was in flight was answered")
        #expect(
            control.onCommitFinished(.campaign, succeeded: false, now: clock.now).change
                == .closed(uncommitted: 100, bound: 100), "the failed commit reports the closure")
        clock.advance(by: .milliseconds(100))
        #expect(control.onCommitFinished(.campaign, succeeded: true, now: clock.now).change == .opened([]))
        #expect(!control.isClosed)
    }
}

extension CommitControl.GateReport {
    static func unchanged(closed: Bool) -> Self { Self(closed: closed, change: .none) }
}
