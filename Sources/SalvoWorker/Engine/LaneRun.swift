/// The pump's count of one job's notifications taken from a lane in a row, against the job's
/// allowance of unconfirmed sends (``JobLedger/sendAllowance(_:bound:)``): looked up once per run,
/// counted into the ledger once when the run ends, nothing per notification but a decrement. A
/// job of one token (a per-user push) keeps no checkpoint and is never held back.
struct LaneRun {
    /// The job's shared part, which identifies the run (compared by identity).
    private(set) var shared: PushNotification.Shared?
    private var generation: JobLedger.Generation = 0
    /// Notifications the job may still send before it waits for a checkpoint.
    private(set) var allowance = Int.max
    private var taken = 0

    init() {}

    init(_ unit: DispatchUnit, ledger: JobLedger, bound: Int) {
        shared = unit.shared
        guard unit.job.notificationCount > 1 else { return }
        generation = unit.reference.ledgerGeneration
        allowance = ledger.sendAllowance(generation, bound: bound)
    }

    mutating func onTaken() {
        allowance -= 1
        taken += 1
    }

    /// Counts the run's notifications as taken in the ledger (once, when the run ends).
    mutating func close(in ledger: inout JobLedger) {
        guard generation != 0, taken > 0 else { return }
        ledger.taken(generation, count: taken)
        taken = 0
    }
}
