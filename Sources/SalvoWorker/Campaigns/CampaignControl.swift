import DequeModule

/// Campaign control's state in the core (docs/jobs.md, "Campaign control"): the commands in
/// force, paused campaigns' work (notifications in ``CampaignHoldQueue``, whole lane jobs in
/// ``PausedJobs``), resumed work waiting for its turn, and the per-campaign counts. Decides what
/// a snapshot changes, what is held and what overflows or expires to the retry topic; the core
/// sweeps its other queues and performs the hand-offs.
///
/// Paused work waits outside the dispatch window, so it never stops other campaigns or per-user
/// pushes, and goes to the retry topic when the queue is full or has held it for
/// `retry.max_held_delay`, so it never pins a partition's commit either.
///
/// While no command is in force (``hasCommands``) the core asks nothing of it per notification;
/// the counts are asked per campaign notification, a dictionary update each.
struct CampaignControl<Instant: InstantProtocol> where Instant.Duration == Duration {
    /// What ``onHold(_:now:)`` asks the core to do.
    struct Held {
        /// What did not fit: to the retry topic.
        let overflow: [PushNotification]
        /// The queue was empty: arm the timer for the hold's expiry.
        let armTimer: Bool
    }

    /// What a resume releases: held notifications go to ``nextResumed()``'s queue here; whole
    /// paused jobs go back to their lanes (the core's scheduler).
    struct Resumed {
        let jobs: [PausedJob]
        let notifications: Int
    }

    private var state = CampaignControlState()
    private var holds: CampaignHoldQueue<PushNotification, Instant>
    private var pausedJobs: PausedJobs<Instant>
    private var resumed: Deque<PushNotification> = []
    private var progress = CampaignProgressLedger()

    init(capacity: Int, maximumHold: Duration) {
        self.holds = CampaignHoldQueue(capacity: capacity, maximumHold: maximumHold)
        self.pausedJobs = PausedJobs(capacity: capacity, maximumHold: maximumHold)
    }

    /// The commands in force (the snapshot last applied).
    var commands: CampaignControlState { state }

    /// Whether any command is in force: while not, no notification is asked about.
    var hasCommands: Bool { !state.commands.isEmpty }

    /// Held, paused and resumed notifications (statistics).
    var heldCount: Int { holds.count + pausedJobs.notificationCount + resumed.count }

    /// The notifications of the paused lane jobs.
    var pausedNotificationCount: Int { pausedJobs.notificationCount }

    /// When held work next expires to the retry topic (for the core's timer).
    var nextExpiry: Instant? {
        switch (holds.nextExpiry, pausedJobs.nextExpiry) {
        case (let held?, let paused?): min(held, paused)
        case (let held, let paused): held ?? paused
        }
    }

    /// The decision for a job's notifications when a command is in force for its campaign;
    /// nil to send (no campaign, no command, or resumed).
    func stoppedDecision(_ campaignID: String?) -> CampaignDecision? {
        guard hasCommands else { return nil }
        let decision = state.decision(for: campaignID)
        return decision == .send ? nil : decision
    }

    // MARK: Commands

    /// A snapshot of the control topic. The initial state and an early change may arrive in
    /// either order: only a higher generation counts. Returns the campaigns whose decision
    /// changed, nil for a stale snapshot.
    mutating func onSnapshot(_ snapshot: CampaignControlState) -> [String: CampaignDecision]? {
        guard snapshot.generation > state.generation else { return nil }
        let previous = state
        state = snapshot
        return snapshot.changes(since: previous)
    }

    /// A campaign was cancelled: its paused jobs and held notifications, to finish unsent.
    mutating func onCancel(_ campaignID: String) -> (jobs: [PausedJob], held: [PushNotification]) {
        (pausedJobs.take(campaignID: campaignID), holds.take(campaignID: campaignID))
    }

    /// A campaign was resumed: its held notifications wait for their turn here, its paused jobs
    /// go back to their lanes.
    mutating func onResume(_ campaignID: String) -> Resumed {
        let released = holds.take(campaignID: campaignID)
        let jobs = pausedJobs.take(campaignID: campaignID)
        resumed.append(contentsOf: released)
        return Resumed(jobs: jobs, notifications: released.count + jobs.reduce(0) { $0 + $1.notificationCount })
    }

    // MARK: Holding

    /// Parks a whole lane job of a paused campaign; false when the queue is full (the core holds
    /// its notifications instead).
    mutating func park(_ job: PausedJob, campaignID: String, now: Instant) -> Bool {
        pausedJobs.park(job, campaignID: campaignID, now: now)
    }

    /// Holds paused work, in runs of one campaign (usually the whole batch: one queue lookup per run).
    mutating func onHold(_ notifications: [PushNotification], now: Instant) -> Held {
        guard !notifications.isEmpty else { return Held(overflow: [], armTimer: false) }
        let wasEmpty = holds.isEmpty
        var overflow: [PushNotification] = []
        var start = notifications.startIndex
        while start < notifications.endIndex {
            let campaignID = notifications[start].job.campaignID
            let end = notifications[start...].firstIndex { $0.job.campaignID != campaignID } ?? notifications.endIndex
            overflow += holds.hold(contentsOf: notifications[start..<end], campaignID: campaignID ?? "", now: now)
            start = end
        }
        return Held(overflow: overflow, armTimer: wasEmpty)
    }

    /// From the timer: work held for `retry.max_held_delay`, for the retry topic, so its job
    /// completes and the partition commits while the campaign stays paused.
    mutating func onExpiry(now: Instant) -> (held: [PushNotification], paused: [PushNotification]) {
        let held = holds.isEmpty ? [] : holds.takeExpired(now: now).map(\.item)
        let paused =
            pausedJobs.isEmpty ? [] : pausedJobs.takeExpired(now: now).flatMap { $0.unit.notifications(in: $0.range) }
        return (held, paused)
    }

    // MARK: Taking work out

    /// Whether resumed work waits for its turn (asked per dispatched notification).
    var hasResumed: Bool { !resumed.isEmpty }

    /// The next resumed notification.
    mutating func nextResumed() -> PushNotification? { resumed.popFirst() }

    /// Held and resumed notifications that `matches` selects (a revoke's partitions, a swept
    /// campaign's resumed work).
    mutating func removeHeld(
        where matches: (PushNotification) -> Bool, resumedOnly: Bool = false
    )
        -> [PushNotification]
    {
        guard !holds.isEmpty || !resumed.isEmpty else { return [] }
        var removed = resumedOnly ? [] : holds.removeAll(where: matches)
        resumed.removeAll { notification in
            guard matches(notification) else { return false }
            removed.append(notification)
            return true
        }
        return removed
    }

    /// Paused lane jobs that `matches` selects (all, by default: a drain).
    mutating func removePausedJobs(where matches: (DispatchUnit) -> Bool = { _ in true }) -> [PausedJob] {
        pausedJobs.removeAll(where: matches)
    }

    // MARK: Progress

    /// Counts `times` notifications of `campaignID` that ended with `outcome` (``CampaignProgressLedger``).
    mutating func count(
        _ outcome: CampaignOutcome, campaignID: String, isRetry: Bool = false, times: Int64 = 1, at now: UTCTimestamp
    ) {
        progress.count(outcome, campaignID: campaignID, isRetry: isRetry, times: times, at: now)
    }

    /// The progress records changed since the last call, for `salvo.campaigns`.
    mutating func takeChangedProgress(now: UTCTimestamp) -> [CampaignProgressRecord] {
        progress.takeChangedRecords(now: now)
    }

    /// One campaign's counts in this worker.
    func counters(for campaignID: String) -> CampaignCounters? { progress.counters(for: campaignID) }
}
