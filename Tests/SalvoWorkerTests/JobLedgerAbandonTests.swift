import Testing

@testable import SalvoWorker

/// The ledger's part in a clean revoke and in the commit gate.
@Suite struct JobLedgerAbandonTests {
    static let partition0 = SourcePosition(topic: "salvo.jobs", partition: 0, offset: 0)
    static let partition1 = SourcePosition(topic: "salvo.jobs", partition: 1, offset: 0)

    @Test("an abandoned job settles once its in-flight notifications and records are done, but never completes")
    func abandonedJobSettlesWithoutCompleting() {
        var ledger = JobLedger()
        let job = Self.partition0
        let generation = ledger.opening(job, notifications: 5).generation
        ledger.abandon(job, generation: generation, count: 3)
        #expect(ledger.unsettledCount { $0.partition == 0 } == 1, "two notifications still in flight")
        #expect(ledger.notificationFinished(job, generation: generation) == .none)
        #expect(
            ledger.notificationFinished(job, generation: generation, records: 1) == .none,
            "a feedback record outstanding")
        #expect(ledger.unsettledCount { $0.partition == 0 } == 1)
        #expect(
            ledger.recordAcknowledged(job, generation: generation) == .none,
            "settled, but three notifications were never sent")
        #expect(ledger.unsettledCount { $0.partition == 0 } == 0)
        #expect(ledger.isOpen(job), "stays open until the partition is forgotten")
    }

    @Test("unsettled jobs are counted per partition")
    func unsettledPerPartition() {
        var ledger = JobLedger()
        _ = ledger.open(Self.partition0, notifications: 1)
        _ = ledger.open(Self.partition1, notifications: 1)
        #expect(ledger.unsettledCount { $0.partition == 0 } == 1)
        #expect(ledger.unsettledCount { _ in true } == 2)
        #expect(
            ledger.notificationFinished(Self.partition1, generation: ledger.generation(of: Self.partition1))
                == .completed(Self.partition1))
        #expect(ledger.unsettledCount { $0.partition == 1 } == 0)
    }

    @Test("completed jobs add all their notifications to the running count")
    func notificationsCompletedCountsWholeJobs() {
        var ledger = JobLedger()
        let job = Self.partition0
        let generation = ledger.opening(job, notifications: 3).generation
        _ = ledger.notificationFinished(job, generation: generation)
        _ = ledger.notificationFinished(job, generation: generation)
        #expect(ledger.notificationsCompleted == 0)
        _ = ledger.notificationFinished(job, generation: generation)
        #expect(ledger.notificationsCompleted == 3)
        _ = ledger.open(Self.partition1, notifications: 0)
        #expect(ledger.notificationsCompleted == 3, "a job with nothing to send adds nothing")
    }
}
