/// A record the core produces (feedback event, dead letter, retry hand-off), from the moment it
/// is handed to the publisher until Kafka acknowledged it. A refused record is produced again:
/// the job it belongs to stays open meanwhile, so its offset is never committed past it.
struct PendingRecord: Sendable {
    enum Kind: Sendable, Hashable {
        case feedback
        case deadLetter
        case retry
    }

    var kind: Kind
    var topic: String
    var record: OutgoingRecord
    /// The job (ledger entry) waiting for the acknowledgement.
    var source: SourcePosition
    /// The ledger entry's generation: an acknowledgement for an earlier opening is ignored.
    var generation: JobLedger.Generation
}
