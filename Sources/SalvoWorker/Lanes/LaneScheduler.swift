import DequeModule

/// Chooses which notification is dispatched next, between the priority (per-user) lane and the
/// campaign lane.
///
/// Smooth weighted round robin over the lanes that have work: with weights 4:1 the order is
/// P P C P P, P P C P P, … while both are busy, so a per-user notification waits at most a couple
/// of dispatches however large the campaign backlog. It is work-conserving: an idle lane's share
/// goes to the other, and an idle lane accumulates no credit to burst with later.
///
/// Work enters as whole units (a job of N notifications) and leaves one notification at a time,
/// so a 100,000-token campaign is one queue entry, not 100,000.
package struct LaneScheduler<Work: Sendable>: Sendable {
    package typealias Configuration = LaneConfiguration

    /// One dispatch: notification `index` of `work`, from `lane`.
    package struct Slot: Sendable {
        package var work: Work
        package var index: Int
        package var lane: Lane
    }

    private struct Entry: Sendable {
        var work: Work
        var next: Int
        var count: Int
    }

    private struct Queue: Sendable {
        var entries: Deque<Entry> = []
        var notifications = 0
        /// Smooth weighted round robin's running credit.
        var credit = 0
    }

    package let configuration: Configuration
    private var priority = Queue()
    private var campaign = Queue()

    package init(configuration: Configuration = Configuration()) throws(SalvoWorkerError) {
        try configuration.validate()
        self.configuration = configuration
    }

    /// Queues notifications `first..<notifications` of `work` on `lane` (`first` > 0: a job
    /// resumed from a checkpoint). Work with nothing left is not queued.
    package mutating func enqueue(_ work: Work, notifications: Int, lane: Lane, startingAt first: Int = 0) {
        enqueue(work, range: first..<max(first, notifications), lane: lane)
    }

    /// Queues notifications `range` of `work` on `lane` (a job resumed from a checkpoint queues
    /// each range it has left). An empty range is not queued.
    package mutating func enqueue(_ work: Work, range: Range<Int>, lane: Lane) {
        guard !range.isEmpty, range.lowerBound >= 0 else { return }
        modify(lane) { queue in
            queue.entries.append(Entry(work: work, next: range.lowerBound, count: range.upperBound))
            queue.notifications += range.count
        }
    }

    /// Puts a slot that ``next(skipping:)`` handed out back at the front of its lane: it is the
    /// next one its lane hands out (a job waiting for its checkpoint to be acknowledged).
    package mutating func putBack(_ slot: Slot) {
        modify(slot.lane) { queue in
            queue.entries.prepend(Entry(work: slot.work, next: slot.index, count: slot.index + 1))
            queue.notifications += 1
        }
    }

    /// The next notification to dispatch, or nil when both lanes are empty; a lane in `skipping`
    /// counts as empty.
    package mutating func next(skipping: Lane? = nil) -> Slot? {
        let lane: Lane
        switch (priority.entries.isEmpty || skipping == .priority, campaign.entries.isEmpty || skipping == .campaign) {
        case (true, true):
            return nil
        case (false, true):
            lane = .priority
            priority.credit = 0
            campaign.credit = 0
        case (true, false):
            lane = .campaign
            priority.credit = 0
            campaign.credit = 0
        case (false, false):
            priority.credit += configuration.priorityWeight
            campaign.credit += configuration.campaignWeight
            lane = priority.credit >= campaign.credit ? .priority : .campaign
            let total = configuration.priorityWeight + configuration.campaignWeight
            modify(lane) { $0.credit -= total }
        }
        return modify(lane) { queue in
            let entry = queue.entries[queue.entries.startIndex]
            let index = entry.next
            if index + 1 == entry.count {
                queue.entries.removeFirst()
            } else {
                queue.entries[queue.entries.startIndex].next = index + 1
            }
            queue.notifications -= 1
            return Slot(work: entry.work, index: index, lane: lane)
        }
    }

    /// Notifications queued on `lane`.
    package func queuedNotifications(in lane: Lane) -> Int {
        lane == .priority ? priority.notifications : campaign.notifications
    }

    /// Whether `lane` is below its capacity; when false, pause the lane's partitions.
    package func hasCapacity(in lane: Lane) -> Bool {
        queuedNotifications(in: lane) < configuration.capacityPerLane
    }

    package var isEmpty: Bool { priority.entries.isEmpty && campaign.entries.isEmpty }

    /// Removes queued work (e.g. of partitions revoked in a rebalance, whose records another
    /// worker will now process) and returns it with the range of its undispatched notifications
    /// (a job may come back as several: a resumed job's ranges, a slot put back).
    package mutating func removeAll(where shouldRemove: (Work) -> Bool) -> [(work: Work, undispatched: Range<Int>)] {
        var removed: [(work: Work, undispatched: Range<Int>)] = []
        for lane in Lane.allCases {
            modify(lane) { queue in
                var kept = Deque<Entry>()
                for entry in queue.entries {
                    if shouldRemove(entry.work) {
                        removed.append((entry.work, entry.next..<entry.count))
                        queue.notifications -= entry.count - entry.next
                    } else {
                        kept.append(entry)
                    }
                }
                queue.entries = kept
            }
        }
        return removed
    }

    private mutating func modify<R>(_ lane: Lane, _ body: (inout Queue) -> R) -> R {
        switch lane {
        case .priority: return body(&priority)
        case .campaign: return body(&campaign)
        }
    }
}

extension LaneScheduler.Slot: Equatable where Work: Equatable {}
