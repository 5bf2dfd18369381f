/// A record the core produces (feedback event, dead letter, retry hand-off), from the moment it
/// is handed to the publisher until Kafka acknowledged it. A record refused for a reason that may
/// pass is produced again: the job it belongs to stays open meanwhile, so its offset is never
/// committed past it. One refused for good is replaced by a body-less dead letter.
struct PendingRecord: Sendable {
    enum Kind: Sendable, Hashable {
        case feedback
        case deadLetter
        case retry
        /// A job checkpoint (``JobCheckpoint``): belongs to no ledger entry; a refusal is dropped
        /// (the next checkpoint replaces it).
        case progress
    }

    var kind: Kind
    var topic: String
    var record: OutgoingRecord
    /// The job (ledger entry) waiting for the acknowledgement.
    var source: SourcePosition
    /// The ledger entry's generation: an acknowledgement for an earlier opening is ignored.
    var generation: JobLedger.Generation
    /// A body-less dead letter standing in for a record Kafka refused for good: if Kafka refuses
    /// this too, it is abandoned (``BodylessDeadLetter``).
    var isBodyless = false
    /// The notifications (``PushNotification/index``) whose checkpoint waits for this record:
    /// empty for a record of the whole job.
    var tokenIndices: [Int32] = []
}
