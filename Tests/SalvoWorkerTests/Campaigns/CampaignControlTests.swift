import SalvoAPNs
import SalvoTestSupport
import Testing

@testable import SalvoWorker

/// Campaign control as timelines: a pause holds, a resume releases in order, a cancel takes
/// everything held, held work expires or overflows to the retry topic, and a stale snapshot
/// changes nothing.
@Suite struct CampaignControlTests {
    typealias Control = CampaignControl<ManualClock.Instant>

    var state = CampaignControlState()
    var at: Int64 = 1_000

    mutating func command(_ campaignID: String, _ action: CampaignCommand.Action) -> CampaignControlState {
        at += 1
        state.apply(
            CampaignCommand(
                campaignID: campaignID, action: action, by: "ops", at: UTCTimestamp(millisecondsSince1970: at)))
        return state
    }

    static func held(_ range: Range<Int>, campaignID: String = "spring") -> [PushNotification] {
        range.map { Fixtures.notification($0, campaignID: campaignID) }
    }

    static func pausedJob(tokens: Int, first: Int = 0) throws -> PausedJob {
        let job = try Fixtures.job(Fixtures.campaignJSON(count: tokens))
        let unit = DispatchUnit(
            job: job, reference: job.reference(source: Fixtures.source), attempt: 1, metricsLane: .campaign,
            enqueuedAtMilliseconds: nil)
        return PausedJob(unit: unit, range: first..<tokens)
    }

    @Test mutating func aPauseHoldsAndAResumeReleasesInOrder() throws {
        let clock = ManualClock()
        var control = Control(capacity: 100, maximumHold: .seconds(60))
        #expect(!control.hasCommands)
        #expect(control.stoppedDecision("spring") == nil, "no command: nothing is asked")
        #expect(control.onSnapshot(command("spring", .pause)) == ["spring": .hold])
        #expect(control.stoppedDecision("spring") == .hold)
        #expect(control.stoppedDecision("autumn") == nil)
        #expect(control.stoppedDecision(nil) == nil, "per-user pushes are always sent")
        let held = control.onHold(Self.held(0..<10), now: clock.now)
        #expect(held.overflow.isEmpty && held.armTimer, "the first hold arms the expiry timer")
        #expect(!control.onHold(Self.held(10..<12), now: clock.now).armTimer, "armed already")
        let paused = try Self.pausedJob(tokens: 5, first: 2)
        #expect(control.park(paused, campaignID: "spring", now: clock.now) == true)
        #expect(control.heldCount == 15 && control.pausedNotificationCount == 3)
        #expect(control.nextExpiry == clock.now.advanced(by: .seconds(60)))
        clock.advance(by: .seconds(30))
        let resumed = control.onResume("spring")
        #expect(resumed.jobs.count == 1 && resumed.notifications == 15)
        #expect(control.hasResumed)
        var order: [DeviceToken] = []
        while let next = control.nextResumed() { order.append(next.token) }
        #expect(order == (0..<12).map(Fixtures.token), "the held notifications in the order they were held")
        #expect(control.heldCount == 0 && control.nextExpiry == nil)
    }

    @Test mutating func heldWorkExpiresAndOverflowsToTheRetryTopic() throws {
        let clock = ManualClock()
        var control = Control(capacity: 10, maximumHold: .seconds(60))
        _ = control.onSnapshot(command("spring", .pause))
        #expect(control.onHold(Self.held(0..<8), now: clock.now).overflow.isEmpty)
        clock.advance(by: .seconds(20))
        #expect(control.onHold(Self.held(8..<14), now: clock.now).overflow.count == 4, "the queue holds 10")
        let paused = try Self.pausedJob(tokens: 3)
        #expect(control.park(paused, campaignID: "spring", now: clock.now) == true)
        clock.advance(by: .seconds(40))
        var expired = control.onExpiry(now: clock.now)
        #expect(expired.held.count == 8 && expired.paused.isEmpty, "the first eight were held for 60 s")
        clock.advance(by: .seconds(20))
        expired = control.onExpiry(now: clock.now)
        #expect(expired.held.count == 2 && expired.paused.count == 3)
        #expect(control.heldCount == 0)
    }

    /// A cancel while work is parked: the paused jobs and held notifications come out to be
    /// finished unsent, and nothing of the campaign is left to expire or resume.
    @Test mutating func aCancelWhileWorkIsParked() throws {
        let clock = ManualClock()
        var control = Control(capacity: 100, maximumHold: .seconds(60))
        _ = control.onSnapshot(command("spring", .pause))
        _ = control.onHold(Self.held(0..<4) + Self.held(0..<2, campaignID: "autumn"), now: clock.now)
        let paused = try Self.pausedJob(tokens: 6)
        #expect(control.park(paused, campaignID: "spring", now: clock.now) == true)
        #expect(control.onSnapshot(command("spring", .cancel)) == ["spring": .cancel])
        let (jobs, held) = control.onCancel("spring")
        #expect(jobs.map(\.notificationCount) == [6] && held.count == 4)
        #expect(control.stoppedDecision("spring") == .cancel)
        #expect(control.heldCount == 2, "another campaign's held work stays")
        #expect(control.onResume("spring").notifications == 0, "nothing of it is left")
        clock.advance(by: .seconds(61))
        #expect(control.onExpiry(now: clock.now).held.map(\.job.campaignID) == ["autumn", "autumn"])
    }

    /// A pause during a drain's hand-off: what the pause holds after the hand-off began is taken
    /// by the shutdown's sweep too, so nothing stays behind in memory.
    @Test mutating func aPauseDuringAHandOff() throws {
        let clock = ManualClock()
        var control = Control(capacity: 100, maximumHold: .seconds(60))
        var lifecycle = CoreLifecycle<Int, ManualClock.Instant>()
        _ = control.onSnapshot(command("spring", .pause))
        _ = control.onHold(Self.held(0..<3), now: clock.now)
        _ = lifecycle.onBeginDrain(1, budget: .seconds(5), now: clock.now)
        #expect(lifecycle.onWorkSettled(idle: true) == true)
        var handedOff = control.removeHeld(where: { _ in true })
        handedOff += control.removePausedJobs().flatMap { $0.unit.notifications(in: $0.range) }
        #expect(handedOff.count == 3)
        // The hand-off's records are not acknowledged yet; a new pause arrives meanwhile.
        _ = control.onSnapshot(command("autumn", .pause))
        _ = control.onHold(Self.held(3..<5, campaignID: "autumn"), now: clock.now)
        #expect(lifecycle.onRecordsSettled(pending: 1) == .none, "the hand-off is pending")
        #expect(control.removeHeld(where: { _ in true }).count == 2, "held after the hand-off, taken by the sweep")
        #expect(lifecycle.onRecordsSettled(pending: 0) == .checkpoint, "acknowledged: the final checkpoints")
        #expect(lifecycle.onRecordsSettled(pending: 0) == .finish(1), "the drain ends once those are acknowledged")
        #expect(control.heldCount == 0)
    }

    @Test mutating func aStaleSnapshotChangesNothing() {
        var control = Control(capacity: 100, maximumHold: .seconds(60))
        let older = command("spring", .pause)
        let newer = command("spring", .resume)
        #expect(control.onSnapshot(newer) != nil)
        #expect(control.onSnapshot(older) == nil)
        #expect(control.commands == newer)
    }
}
