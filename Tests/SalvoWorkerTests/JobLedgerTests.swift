import Testing

@testable import SalvoWorker

@Suite struct JobLedgerTests {
    static func position(_ offset: Int64, partition: Int32 = 0) -> SourcePosition {
        SourcePosition(topic: "salvo.jobs", partition: partition, offset: offset)
    }

    @Test func completesWhenEveryNotificationIsDelivered() {
        var ledger = JobLedger()
        let job = Self.position(1)
        #expect(ledger.open(job, notifications: 3) == .none)
        #expect(ledger.notificationFinished(job, generation: ledger.generation(of: job)) == .none)
        #expect(ledger.notificationFinished(job, generation: ledger.generation(of: job)) == .none)
        #expect(ledger.notificationFinished(job, generation: ledger.generation(of: job)) == .completed(job))
        #expect(ledger.openJobs == 0)
    }

    @Test func waitsForRecordAcknowledgements() {
        var ledger = JobLedger()
        let job = Self.position(2)
        _ = ledger.open(job, notifications: 2)
        #expect(ledger.notificationFinished(job, generation: ledger.generation(of: job)) == .none)
        // Rejected: feedback event and dead letter enqueued.
        #expect(ledger.notificationFinished(job, generation: ledger.generation(of: job), records: 2) == .none)
        #expect(ledger.outstanding(for: job)?.unacknowledgedRecords == 2)
        #expect(ledger.recordAcknowledged(job, generation: ledger.generation(of: job)) == .none)
        #expect(ledger.recordAcknowledged(job, generation: ledger.generation(of: job)) == .completed(job))
    }

    @Test func acknowledgementMayArriveBeforeTheNotificationIsReported() {
        var ledger = JobLedger()
        let job = Self.position(3)
        _ = ledger.open(job, notifications: 1)
        #expect(ledger.recordAcknowledged(job, generation: ledger.generation(of: job)) == .none)
        #expect(ledger.notificationFinished(job, generation: ledger.generation(of: job), records: 1) == .completed(job))
    }

    @Test func jobLevelRecordsAtOpen() {
        var ledger = JobLedger()
        // A job rejected as a whole: only its dead letter is outstanding.
        #expect(ledger.open(Self.position(4), notifications: 0, records: 1) == .none)
        #expect(
            ledger.recordAcknowledged(Self.position(4), generation: ledger.generation(of: Self.position(4)))
                == .completed(Self.position(4)))
        // Nothing outstanding at all.
        #expect(ledger.open(Self.position(5), notifications: 0) == .completed(Self.position(5)))
        #expect(ledger.openJobs == 0)
    }

    @Test func laterHandOffsAddRecords() {
        var ledger = JobLedger()
        let job = Self.position(6)
        _ = ledger.open(job, notifications: 2)
        #expect(ledger.recordsEnqueued(job, generation: ledger.generation(of: job), count: 1) == .none)
        #expect(ledger.notificationFinished(job, generation: ledger.generation(of: job)) == .none)
        #expect(ledger.notificationFinished(job, generation: ledger.generation(of: job)) == .none)
        #expect(ledger.recordAcknowledged(job, generation: ledger.generation(of: job)) == .completed(job))
    }

    @Test func revokedJobsAreForgottenAndLateEventsIgnored() {
        var ledger = JobLedger()
        let revoked = Self.position(7, partition: 0)
        let kept = Self.position(8, partition: 1)
        _ = ledger.open(revoked, notifications: 1)
        _ = ledger.open(kept, notifications: 1)
        let revokedGeneration = ledger.generation(of: revoked)
        ledger.forget { $0.partition == 0 }
        #expect(ledger.openJobs == 1)
        #expect(ledger.notificationFinished(revoked, generation: revokedGeneration) == .none)
        #expect(ledger.notificationFinished(kept, generation: ledger.generation(of: kept)) == .completed(kept))
    }

    @Test func openingReturnsTheGenerationItsEventsMustCarry() {
        var ledger = JobLedger()
        let job = Self.position(5)
        let other = Self.position(6)
        #expect(!ledger.isOpen(job))
        let (action, generation) = ledger.opening(job, notifications: 1)
        #expect(action == .none)
        #expect(generation != 0 && generation == ledger.generation(of: job))
        #expect(ledger.isOpen(job))
        // Nothing outstanding: completed at once, never open, generation 0.
        let empty = ledger.opening(other, notifications: 0)
        #expect(empty.action == .completed(other) && empty.generation == 0)
        #expect(!ledger.isOpen(other))
        // An event naming this generation but another position is not this job's.
        #expect(ledger.notificationFinished(other, generation: generation) == .none)
        #expect(ledger.notificationFinished(Self.position(5, partition: 1), generation: generation) == .none)
        #expect(ledger.notificationFinished(job, generation: generation) == .completed(job))
        #expect(!ledger.isOpen(job))
    }

    /// Entries live in reused slots: an event of a finished job names its old generation, which
    /// must not reach the job now in that slot, even at the same position.
    @Test func aGenerationOfAReusedSlotNamesOnlyItsOwnOpening() {
        var ledger = JobLedger()
        let first = Self.position(1)
        let firstGeneration = ledger.opening(first, notifications: 1).generation
        #expect(ledger.notificationFinished(first, generation: firstGeneration) == .completed(first))
        let second = ledger.opening(first, notifications: 2).generation
        #expect(second != firstGeneration && second != 0)
        #expect(ledger.notificationFinished(first, generation: firstGeneration) == .none)
        #expect(ledger.outstanding(for: first)?.notifications == 2)
        // Many openings at once: each generation still finds its own entry.
        let many = (10..<1_010).map { Self.position(Int64($0)) }
        let generations = many.map { ledger.opening($0, notifications: 1).generation }
        #expect(Set(generations).count == many.count)
        for (job, generation) in zip(many, generations).reversed() {
            #expect(ledger.notificationFinished(job, generation: generation) == .completed(job))
        }
        #expect(ledger.openJobs == 1)
    }

    /// The partition is revoked while two sends of a job are in flight, assigned back, and the job
    /// redelivered and opened again; the old sends' outcomes (and the acknowledgement of a record
    /// one of them caused) arrive late, interleaved with the new opening's. Only the new opening's
    /// own events may complete it — before the fix the stale outcome closed it one send early.
    @Test func staleOutcomesOfAnEarlierOpeningNeverCountForTheReopenedJob() {
        var ledger = JobLedger()
        let job = Self.position(3)
        #expect(ledger.open(job, notifications: 2) == .none)
        let old = ledger.generation(of: job)
        #expect(ledger.notificationFinished(job, generation: old, records: 1) == .none)
        ledger.forget { $0.partition == job.partition }
        #expect(ledger.open(job, notifications: 2) == .none)
        let new = ledger.generation(of: job)
        #expect(new != old)

        #expect(ledger.notificationFinished(job, generation: new) == .none)
        #expect(ledger.notificationFinished(job, generation: old) == .none, "stale outcome")
        #expect(ledger.recordAcknowledged(job, generation: old) == .none, "stale acknowledgement")
        #expect(ledger.outstanding(for: job)?.notifications == 1)
        #expect(ledger.outstanding(for: job)?.unacknowledgedRecords == 0)
        #expect(ledger.notificationFinished(job, generation: new) == .completed(job))
        #expect(ledger.openJobs == 0)
        #expect(ledger.notificationFinished(job, generation: new) == .none, "nothing open any more")
    }

    /// Random interleavings of many jobs' events (seeded, so failures replay): each job completes
    /// exactly once, and only after its last event.
    @Test(arguments: 0..<20)
    func interleavingsCompleteEachJobOnceAtItsLastEvent(seed: UInt64) {
        enum Event: Equatable {
            case finished(SourcePosition, records: Int)
            case acknowledged(SourcePosition)
        }
        var random = Jitter(seed: seed)
        var ledger = JobLedger()
        var pending: [[Event]] = []
        var jobs: [SourcePosition] = []
        var completed: [SourcePosition] = []
        for offset in 0..<12 {
            let job = Self.position(Int64(offset))
            jobs.append(job)
            let notifications = Int(random.next() % 5)
            let jobRecords = Int(random.next() % 2)
            var events: [Event] = []
            var acknowledgements = jobRecords
            for _ in 0..<notifications {
                let records = Int(random.next() % 3)
                acknowledgements += records
                events.append(.finished(job, records: records))
            }
            events += Array(repeating: .acknowledged(job), count: acknowledgements)
            // Shuffle each job's events: acknowledgements may overtake their notifications.
            for index in events.indices.reversed() where index > 0 {
                events.swapAt(index, Int(random.next() % UInt64(index + 1)))
            }
            let action = ledger.open(job, notifications: notifications, records: jobRecords)
            if events.isEmpty {
                #expect(action == .completed(job))
                completed.append(job)
            } else {
                #expect(action == .none)
            }
            pending.append(events)
        }
        while let jobIndex = pending.indices.filter({ !pending[$0].isEmpty }).randomElement(using: &random) {
            let event = pending[jobIndex].removeFirst()
            let action: JobLedger.Action
            switch event {
            case .finished(let job, let records):
                action = ledger.notificationFinished(job, generation: ledger.generation(of: job), records: records)
            case .acknowledged(let job): action = ledger.recordAcknowledged(job, generation: ledger.generation(of: job))
            }
            if case .completed(let job) = action {
                #expect(job == jobs[jobIndex])
                #expect(pending[jobIndex].isEmpty, "completed before its last event")
                completed.append(job)
            }
        }
        #expect(completed.count == jobs.count)
        #expect(Set(completed) == Set(jobs))
        #expect(ledger.openJobs == 0)
    }
}
