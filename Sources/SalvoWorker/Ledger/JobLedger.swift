import SalvoPrimitives

/// Knows when a job is done, which is when its Kafka offset may be committed: every notification
/// reached a terminal state *and* every record the job caused (feedback events, dead letters,
/// retry-topic hand-offs) was acknowledged by Kafka. Committing earlier could lose a feedback event
/// or a retry on a crash; this is the at-least-once promise of docs/design.md.
///
/// Keyed by the job's ``SourcePosition``. Records are counted as *enqueued* and *acknowledged*
/// separately, so an acknowledgement may arrive before the worker reports the notification that
/// caused it as finished; a job completes only once all its notifications finished and the two
/// counts agree. A record that Kafka fails to take must be produced again: the ledger waits for
/// its acknowledgement, so the offset is not committed meanwhile (a restart redelivers the job).
///
/// Every opened entry gets a new ``Generation``, and every event names the generation it belongs
/// to. A partition revoked and assigned back redelivers its jobs, which open again under the same
/// position; an outcome of a send made for the old entry, arriving late, carries the old
/// generation and is ignored — otherwise it would finish the new entry one notification early
/// and commit its offset while a real send is still in flight.
package struct JobLedger: Sendable {
    package enum Action: Sendable, Hashable {
        /// Nothing to do yet.
        case none
        /// The job is done: mark its offset for commit (the offset tracker finds the
        /// contiguous-completion watermark per partition).
        case completed(SourcePosition)
        /// The job's done notifications grew by ``checkpointEvery`` since its partition's last
        /// checkpoint: write the partition's checkpoint now, not at the next interval.
        case checkpointDue(SourcePosition)
    }

    /// One open job's part of a partition checkpoint being written: the done count it records,
    /// confirmed once Kafka acknowledges the record (``confirm(_:done:)``).
    package struct WrittenJob: Sendable, Hashable {
        package var generation: Generation
        package var checkpoint: JobCheckpoint
        /// The done count the checkpoint records.
        package var done: Int
    }

    /// Which opening of a position an event belongs to; never reused within one ledger.
    package typealias Generation = UInt64

    /// What a job still waits for.
    package struct Outstanding: Sendable, Hashable {
        /// The opening this entry is; events of any other one are stale.
        package var generation: Generation
        /// The job's position, less its topic: checked against every event's position without
        /// copying (and so retaining) the topic string.
        var partition: Int32
        var offset: Int64
        /// Notifications not yet terminal.
        package var notifications: Int
        /// Notifications the job opened with.
        package var total: Int
        /// The done notifications of a job of several tokens (nil for one token: nothing to resume).
        package var progress: TokenProgress?
        package var recordsEnqueued: Int
        package var recordsAcknowledged: Int
        /// Notifications dropped unsent (their partition is being revoked): the job never
        /// completes here, and the next owner sends them.
        package var abandoned = 0

        /// Records enqueued but not yet acknowledged.
        package var unacknowledgedRecords: Int { recordsEnqueued - recordsAcknowledged }

        /// Nothing of the job is in flight here any more: every notification is terminal or
        /// abandoned and every record acknowledged.
        var isSettled: Bool { notifications == 0 && recordsEnqueued == recordsAcknowledged }

        var isDone: Bool { isSettled && abandoned == 0 }
    }

    /// Open entries, in the slot their generation names (``slot(of:)``): the per-notification
    /// events find theirs by an array index. As a dictionary keyed by generation, its insert, two
    /// lookups and removal hashed an integer four times per per-user push (~700 instructions).
    private var jobs = SlotTable<Outstanding>()
    /// The open entry's generation of each position.
    private var generations: [SourcePosition: Generation] = [:]
    /// How many entries were opened before; starts at 1, so 0 never names an open entry (a job
    /// that completed when it was opened).
    private var nextSequence: Generation = 1
    /// Open entries that are records rejected at intake (``openingRejected(_:)``): their
    /// completion counts as a rejected job, not a completed one. Usually empty, so completing a
    /// job hashes nothing.
    private var rejected: Set<SourcePosition> = []

    /// A generation is the opening's sequence number above the slot of its entry: unique for
    /// 2^40 openings, and its low bits find the entry. A late event for an earlier opening that
    /// used the same slot names another sequence, so the entry's own generation tells them apart.
    private static let slotBits: Generation = 24

    private static func slot(of generation: Generation) -> Int {
        Int(truncatingIfNeeded: generation & ((1 << slotBits) - 1))
    }

    /// The open entry `generation` names, if it is still open.
    private func entry(_ generation: Generation) -> Outstanding? {
        guard let outstanding = jobs[Self.slot(of: generation)], outstanding.generation == generation else {
            return nil
        }
        return outstanding
    }
    /// Notifications of every job completed so far (a job counts all it opened with when it
    /// completes): the core reads the growth after each `.completed` action.
    package private(set) var notificationsCompleted = 0

    /// How many notifications of one job finish between count-triggered checkpoints (0: by time only).
    package let checkpointEvery: Int

    package init(checkpointEvery: Int = 0) {
        self.checkpointEvery = checkpointEvery
    }

    /// Jobs not yet completed.
    package var openJobs: Int { jobs.count }

    /// Whether `job` has an open entry (one lookup; ``outstanding(for:)`` takes two).
    package func isOpen(_ job: SourcePosition) -> Bool {
        generations[job] != nil
    }

    package func outstanding(for job: SourcePosition) -> Outstanding? {
        generations[job].flatMap(entry)
    }

    /// The generation of `job`'s open entry, which its events must carry; 0 when it is not open.
    package func generation(of job: SourcePosition) -> Generation {
        generations[job] ?? 0
    }

    /// Starts tracking a job with `notifications` notifications, and `records` records already
    /// enqueued for it (dead letters of rejected tokens, or of the whole job). Call it before
    /// producing any of the job's records. A job with nothing outstanding completes at once.
    package mutating func open(_ job: SourcePosition, notifications: Int, records: Int = 0) -> Action {
        opening(job, notifications: notifications, records: records).action
    }

    /// ``open(_:notifications:records:)``, also returning the generation the job's events must
    /// carry (0 when the job completed at once), so the caller needs no second lookup.
    ///
    /// `progress`: the job's token progress when its checkpoint is kept (a job of several tokens;
    /// `notifications` is then what is left after the prefix a checkpoint skipped).
    package mutating func opening(
        _ job: SourcePosition, notifications: Int, records: Int = 0, progress: TokenProgress? = nil
    ) -> (action: Action, generation: Generation) {
        precondition(notifications >= 0 && records >= 0, "counts are never negative")
        let outstanding = Outstanding(
            generation: 0, partition: job.partition, offset: job.offset, notifications: notifications,
            total: notifications, progress: progress, recordsEnqueued: records, recordsAcknowledged: 0)
        if outstanding.isDone {
            precondition(generations[job] == nil, "job \(job) is already open")
            notificationsCompleted += notifications
            return (.completed(job), 0)
        }
        let sequence = nextSequence
        nextSequence += 1
        let slot = jobs.insert(outstanding)
        precondition(slot < 1 << Self.slotBits, "more than \(1 << Self.slotBits) jobs open")
        let generation = sequence << Self.slotBits | Generation(slot)
        jobs.update(slot) { $0.generation = generation }
        // One lookup both checks and inserts (this runs once per per-user push).
        let previous = generations.updateValue(generation, forKey: job)
        precondition(previous == nil, "job \(job) is already open")
        return (.none, generation)
    }

    /// A notification of `job` reached a terminal state; `records` records it caused were enqueued
    /// for Kafka (0 when accepted by APNs; its feedback event and/or dead letter when rejected; 1
    /// when handed to the retry topic).
    /// `index`: the notification's ``PushNotification/index``, for the job's checkpoint;
    /// `tokenRecords`: how many of `records` wait for their acknowledgement before it is done
    /// there (a hand-off record covering several tokens counts once in `records` and once per
    /// token here).
    package mutating func notificationFinished(
        _ job: SourcePosition, generation: Generation, records: Int = 0, index: Int32 = 0, tokenRecords: Int? = nil
    ) -> Action {
        update(job, generation) { outstanding in
            precondition(outstanding.notifications > 0, "job \(job) finished more notifications than it has")
            precondition(records >= 0, "counts are never negative")
            outstanding.notifications -= 1
            outstanding.recordsEnqueued += records
            outstanding.progress?.finished(index, records: tokenRecords ?? records)
        }
    }

    /// More records were enqueued for `job` without finishing a notification (e.g. the retry
    /// scheduler's shutdown hand-off batches several notifications into one record).
    package mutating func recordsEnqueued(_ job: SourcePosition, generation: Generation, count: Int) -> Action {
        update(job, generation) { outstanding in
            precondition(count >= 0, "counts are never negative")
            outstanding.recordsEnqueued += count
        }
    }

    /// `count` notifications of `job` were dropped unsent because its partition is being revoked:
    /// the entry stops waiting for them but never completes (the next owner sends them).
    package mutating func abandon(_ job: SourcePosition, generation: Generation, count: Int) {
        precondition(count >= 0, "counts are never negative")
        _ = update(job, generation) { outstanding in
            precondition(outstanding.notifications >= count, "job \(job) abandoned more notifications than it has")
            outstanding.notifications -= count
            outstanding.abandoned += count
        }
    }

    /// Open entries in the partitions `isSelected` picks that still wait for an answer or an
    /// acknowledgement (a revoke waits for these before committing). Walks every open entry:
    /// called a few times per rebalance, never per notification.
    package func unsettledCount(where isSelected: (SourcePosition) -> Bool) -> Int {
        var count = 0
        for (job, generation) in generations where isSelected(job) {
            if let outstanding = entry(generation), !outstanding.isSettled { count += 1 }
        }
        return count
    }

    /// Kafka acknowledged one record of `job`, caused by the notifications at `indices` (none for
    /// a record of the whole job).
    package mutating func recordAcknowledged(
        _ job: SourcePosition, generation: Generation, indices: [Int32] = []
    ) -> Action {
        update(job, generation) { outstanding in
            outstanding.recordsAcknowledged += 1
            for index in indices { outstanding.progress?.recordAcknowledged(index) }
        }
    }

    /// Each open job of several tokens with done notifications in the partitions `isSelected`
    /// picks, by partition and ascending offset, counted as written: what a new owner of the
    /// partition may skip. Walks every open job: called once per checkpoint interval and when a
    /// count-triggered checkpoint is due, never per notification.
    mutating func takeJobCheckpoints(
        where isSelected: (SourcePosition.Partition) -> Bool = { _ in true }
    ) -> [SourcePosition.Partition: [WrittenJob]] {
        var found: [SourcePosition.Partition: [(offset: Int64, generation: Generation)]] = [:]
        for (job, generation) in generations {
            let partition = job.partitionKey
            guard isSelected(partition), let progress = entry(generation)?.progress, progress.doneCount > 0 else {
                continue
            }
            found[partition, default: []].append((job.offset, generation))
        }
        return found.mapValues { openJobs in
            openJobs.sorted { $0.offset < $1.offset }.compactMap { job -> WrittenJob? in
                var written: WrittenJob?
                jobs.update(Self.slot(of: job.generation)) { outstanding in
                    guard let done = outstanding.progress?.onWritten(), let progress = outstanding.progress else {
                        return
                    }
                    written = WrittenJob(
                        generation: job.generation,
                        checkpoint: JobCheckpoint(
                            offset: job.offset, jobID: progress.jobID, done: progress.doneRanges()),
                        done: done)
                }
                return written
            }
        }
    }

    /// Kafka acknowledged a checkpoint recording `done` notifications of the job `generation`
    /// names (if it is still open).
    package mutating func confirm(_ generation: Generation, done: Int) {
        jobs.update(Self.slot(of: generation)) { outstanding in
            guard outstanding.generation == generation else { return }
            outstanding.progress?.onConfirmed(done)
        }
    }

    /// `count` notifications of the job `generation` names left the lane for sending.
    package mutating func taken(_ generation: Generation, count: Int) {
        jobs.update(Self.slot(of: generation)) { outstanding in
            guard outstanding.generation == generation else { return }
            outstanding.progress?.onTaken(count)
        }
    }

    /// How many more notifications of the job `generation` names may leave the lane before its
    /// unconfirmed sends reach `bound`; `Int.max` for a job without a checkpoint (one token) or
    /// one no longer open.
    package func sendAllowance(_ generation: Generation, bound: Int) -> Int {
        guard let progress = entry(generation)?.progress else { return .max }
        return max(0, bound - progress.unconfirmed)
    }

    /// The progress of the job `generation` names, if it is open and keeps one.
    package func progress(_ generation: Generation) -> TokenProgress? {
        entry(generation)?.progress
    }

    /// Opens the entry of a record rejected at intake: no notifications, one record (its dead
    /// letter). Returns the generation its dead letter carries.
    package mutating func openingRejected(_ job: SourcePosition) -> Generation {
        let generation = opening(job, notifications: 0, records: 1).generation
        rejected.insert(job)
        return generation
    }

    /// Whether `job`, which has just completed, was a rejected record (asked once per completion).
    package mutating func completedWasRejected(_ job: SourcePosition) -> Bool {
        !rejected.isEmpty && rejected.remove(job) != nil
    }

    /// Forgets jobs that are no longer this worker's (partitions revoked in a rebalance); their
    /// offsets are not committed here and events still arriving for them are ignored.
    package mutating func forget(where shouldForget: (SourcePosition) -> Bool) {
        if !rejected.isEmpty { rejected = rejected.filter { !shouldForget($0) } }
        var forgotten: [Generation] = []
        generations = generations.filter { job, generation in
            guard shouldForget(job) else { return true }
            forgotten.append(generation)
            return false
        }
        for generation in forgotten where entry(generation) != nil { jobs.remove(Self.slot(of: generation)) }
    }

    /// Events for jobs not (or no longer) open, or for an earlier opening of the same position,
    /// are ignored: they belong to revoked partitions.
    private mutating func update(
        _ job: SourcePosition, _ generation: Generation, _ change: (inout Outstanding) -> Void
    ) -> Action {
        // One array access per event (this runs once per notification), changing the entry in
        // place: each copy of an entry out retained and released its progress (~300 instructions).
        let slot = Self.slot(of: generation)
        let every = checkpointEvery
        let changed = jobs.update(slot) { outstanding in
            Self.apply(change, to: &outstanding, of: job, generation, checkpointEvery: every)
        }
        switch changed ?? .unchanged {
        case .unchanged:
            return .none
        case .checkpointDue:
            return .checkpointDue(job)
        case .done(let total):
            notificationsCompleted += total
            jobs.remove(slot)
            generations[job] = nil
            return .completed(job)
        }
    }

    private enum Change {
        case unchanged
        case checkpointDue
        case done(total: Int)
    }

    /// Changes `outstanding` if it is `job`'s entry of this `generation`.
    private static func apply(
        _ change: (inout Outstanding) -> Void, to outstanding: inout Outstanding, of job: SourcePosition,
        _ generation: Generation, checkpointEvery: Int
    ) -> Change {
        guard outstanding.generation == generation, outstanding.offset == job.offset,
            outstanding.partition == job.partition
        else { return .unchanged }
        change(&outstanding)
        if outstanding.isDone { return .done(total: outstanding.total) }
        if checkpointEvery > 0, let unwritten = outstanding.progress?.unwritten, unwritten >= checkpointEvery {
            return .checkpointDue
        }
        return .unchanged
    }
}
