/// A lane job of a paused campaign, held whole: the range of its notifications not yet sent (a
/// job resumed from a checkpoint may be held as several).
struct PausedJob: Sendable {
    let unit: DispatchUnit
    let range: Range<Int>

    var notificationCount: Int { range.count }

    /// The lane it goes back to on resume (retry records' jobs queue in the campaign lane).
    var lane: Lane { unit.metricsLane == .priority ? .priority : .campaign }
}

/// Lane jobs of paused campaigns, held whole rather than as notifications.
///
/// A pause used to build every queued notification of the campaign on the worker's loop: for a
/// 45,000-notification backlog per worker that took 0.8–1.5 s in a debug build, the loop and the
/// CPU went to it, and requests already on the wire were answered after the pause's 1 s bound.
/// Moving the lane entries is one step per job. The jobs are in memory already (the lane bound
/// admitted them); `capacity` bounds in notifications what intake adds while the campaign is
/// paused, as the hold queue does, and past `maximumHold` the core hands them to the retry topic
/// so they never pin a partition's commit.
struct PausedJobs<Instant: InstantProtocol & Sendable>: Sendable where Instant.Duration == Duration {
    private var queue: CampaignHoldQueue<PausedJob, Instant>
    let capacity: Int
    private(set) var notificationCount = 0

    init(capacity: Int, maximumHold: Duration) {
        self.queue = CampaignHoldQueue(capacity: .max, maximumHold: maximumHold)
        self.capacity = capacity
    }

    var isEmpty: Bool { queue.isEmpty }
    var nextExpiry: Instant? { queue.nextExpiry }

    /// Holds `job`; false when it does not fit (the caller holds its notifications instead).
    mutating func park(_ job: PausedJob, campaignID: String, now: Instant) -> Bool {
        guard notificationCount + job.notificationCount <= capacity else { return false }
        _ = queue.hold(job, campaignID: campaignID, now: now)
        notificationCount += job.notificationCount
        return true
    }

    /// Every job of the campaign, in the order paused (resume: back to the lanes; cancel: done).
    mutating func take(campaignID: String) -> [PausedJob] {
        counted(queue.take(campaignID: campaignID))
    }

    /// The jobs paused for `maximumHold` or longer.
    mutating func takeExpired(now: Instant) -> [PausedJob] {
        counted(queue.takeExpired(now: now).map(\.item))
    }

    /// The jobs `shouldRemove` selects (a revoked partition's), or all of them.
    mutating func removeAll(where shouldRemove: (DispatchUnit) -> Bool = { _ in true }) -> [PausedJob] {
        counted(queue.removeAll { shouldRemove($0.unit) })
    }

    private mutating func counted(_ jobs: [PausedJob]) -> [PausedJob] {
        notificationCount -= jobs.reduce(0) { $0 + $1.notificationCount }
        return jobs
    }
}
