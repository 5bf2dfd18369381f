import Testing

@testable import SalvoWorker

@Suite struct LaneSchedulerTests {
    typealias Scheduler = LaneScheduler<String>

    private func drain(_ scheduler: inout Scheduler, steps: Int) -> [Scheduler.Slot] {
        (0..<steps).compactMap { _ in scheduler.next() }
    }

    @Test func busyLanesShareFourToOne() throws {
        var scheduler = try Scheduler()
        scheduler.enqueue("users", notifications: 1_000, lane: .priority)
        scheduler.enqueue("campaign", notifications: 1_000, lane: .campaign)
        let lanes = drain(&scheduler, steps: 10).map(\.lane)
        #expect(
            lanes == [
                .priority, .priority, .campaign, .priority, .priority, .priority, .priority, .campaign, .priority,
                .priority,
            ])
        let many = drain(&scheduler, steps: 1_000)
        #expect(many.filter { $0.lane == .campaign }.count == 200)
    }

    @Test func idleLaneSharesAreUsedAndNotSaved() throws {
        var scheduler = try Scheduler()
        scheduler.enqueue("campaign", notifications: 100, lane: .campaign)
        #expect(drain(&scheduler, steps: 50).allSatisfy { $0.lane == .campaign })
        // A per-user item arriving now is served next; the campaign's lone run earned it no credit.
        scheduler.enqueue("user", notifications: 1, lane: .priority)
        #expect(scheduler.next()?.work == "user")
        #expect(scheduler.next()?.lane == .campaign)
    }

    @Test func dispatchesEveryIndexInOrder() throws {
        var scheduler = try Scheduler()
        scheduler.enqueue("a", notifications: 3, lane: .campaign)
        scheduler.enqueue("empty", notifications: 0, lane: .campaign)
        scheduler.enqueue("b", notifications: 2, lane: .campaign)
        let slots = drain(&scheduler, steps: 10)
        #expect(slots.map { "\($0.work)\($0.index)" } == ["a0", "a1", "a2", "b0", "b1"])
        #expect(scheduler.isEmpty)
        #expect(scheduler.next() == nil)
    }

    @Test func campaignBacklogDoesNotStarvePerUserPushes() throws {
        var scheduler = try Scheduler()
        scheduler.enqueue("campaign", notifications: 100_000, lane: .campaign)
        var dispatched = 0
        var worstWait = 0
        var campaignServed = 0
        // A per-user push arrives every 3 dispatches while the campaign backlog is huge.
        for arrival in 0..<2_000 {
            scheduler.enqueue("user-\(arrival)", notifications: 1, lane: .priority)
            for _ in 0..<3 {
                guard let slot = scheduler.next() else { break }
                dispatched += 1
                if slot.lane == .campaign { campaignServed += 1 }
            }
            worstWait = max(worstWait, scheduler.queuedNotifications(in: .priority))
        }
        // Per-user pushes never queue up: each is out within two dispatches of arriving.
        #expect(worstWait == 0)
        // And the campaign still moves: it gets every dispatch the per-user lane does not need.
        #expect(campaignServed == dispatched - 2_000)
        #expect(scheduler.queuedNotifications(in: .campaign) == 100_000 - campaignServed)
    }

    @Test func perUserBurstWaitsBoundedSteps() throws {
        var scheduler = try Scheduler()
        scheduler.enqueue("campaign", notifications: 100_000, lane: .campaign)
        _ = drain(&scheduler, steps: 7)
        for n in 0..<100 { scheduler.enqueue("user-\(n)", notifications: 1, lane: .priority) }
        // 100 per-user pushes behind a 100,000 backlog are all out within 100 × 5/4 + 1 steps.
        var steps = 0
        while scheduler.queuedNotifications(in: .priority) > 0, steps < 1_000 {
            _ = scheduler.next()
            steps += 1
        }
        #expect(steps <= 126)
    }

    @Test func capacitySignalsBackPressure() throws {
        var scheduler = try Scheduler(configuration: .init(capacityPerLane: 10))
        scheduler.enqueue("a", notifications: 9, lane: .campaign)
        #expect(scheduler.hasCapacity(in: .campaign))
        scheduler.enqueue("b", notifications: 5, lane: .campaign)
        #expect(!scheduler.hasCapacity(in: .campaign))
        #expect(scheduler.hasCapacity(in: .priority))
        _ = drain(&scheduler, steps: 5)
        #expect(scheduler.hasCapacity(in: .campaign))
    }

    @Test(
        "a slot put back is the next its lane hands out; a skipped lane hands out nothing; ranges are removed as queued"
    )
    func putBackAndSkipping() throws {
        var scheduler = try Scheduler()
        scheduler.enqueue("job", range: 2..<5, lane: .campaign)
        scheduler.enqueue("push", notifications: 1, lane: .priority)
        let next = scheduler.next(skipping: .priority)
        let slot = try #require(next)
        #expect(slot.work == "job" && slot.index == 2)
        scheduler.putBack(slot)
        #expect(scheduler.queuedNotifications(in: .campaign) == 3)
        #expect(scheduler.next(skipping: .campaign)?.work == "push")
        #expect(scheduler.next(skipping: .campaign) == nil, "the priority lane is empty, the campaign lane skipped")
        #expect(scheduler.removeAll { _ in true }.map(\.undispatched) == [2..<3, 3..<5])
    }

    @Test func revokedWorkIsRemoved() throws {
        var scheduler = try Scheduler()
        scheduler.enqueue("p0-a", notifications: 5, lane: .campaign)
        scheduler.enqueue("p1-b", notifications: 5, lane: .campaign)
        scheduler.enqueue("p0-c", notifications: 5, lane: .priority)
        _ = scheduler.next()
        _ = scheduler.next()
        _ = scheduler.next()
        let removed = scheduler.removeAll { $0.hasPrefix("p0") }
        #expect(removed.map(\.work) == ["p0-c", "p0-a"])
        #expect(removed.map(\.undispatched) == [2..<5, 1..<5])
        #expect(scheduler.queuedNotifications(in: .campaign) == 5)
        #expect(scheduler.queuedNotifications(in: .priority) == 0)
        #expect(drain(&scheduler, steps: 10).map(\.work) == Array(repeating: "p1-b", count: 5))
    }

    @Test func configurationIsValidated() {
        #expect(throws: SalvoWorkerError.self) { try Scheduler(configuration: .init(priorityWeight: 0)) }
        #expect(throws: SalvoWorkerError.self) { try Scheduler(configuration: .init(capacityPerLane: 0)) }
    }
}
