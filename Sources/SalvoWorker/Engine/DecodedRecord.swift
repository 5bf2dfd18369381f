/// A Kafka record as a lane's consumer task hands it to the core: decoded off the core's event
/// loop (decoding is the expensive part of a campaign job), with where it came from.
struct DecodedRecord: Sendable {
    enum Content: Sendable {
        case job(Job)
        case retry(RetryJob)
        /// A broadcast to a Live Activity channel (``WorkerCore/acceptBroadcast(_:record:)``).
        case broadcast(BroadcastRecord)
        /// Bad input (or a job no pool can send): dead-lettered with the original bytes.
        /// `indirect`: a dead letter is 288 bytes inline, which made every record 337 bytes,
        /// copied several times on its way from the consumer to the ledger (memcpy and outlined
        /// copies: ~1,100 instructions per per-user job in `make bench-instructions`); boxed, the
        /// rare rejected record pays one allocation and the rest are 81 bytes.
        indirect case rejected(DeadLetterRecord)
    }

    var content: Content
    var source: SourcePosition
    /// The scheduler lane (retry records share the campaign lane).
    var lane: Lane
    var timestampMilliseconds: Int64?

    var metricsLane: MetricsLane {
        if case .retry = content { return .retry }
        return MetricsLane(lane)
    }
}
