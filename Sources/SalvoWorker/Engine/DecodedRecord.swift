/// A Kafka record as a lane's consumer task hands it to the core: decoded off the core's event
/// loop (decoding is the expensive part of a campaign job), with where it came from.
struct DecodedRecord: Sendable {
    enum Content: Sendable {
        case job(Job)
        case retry(RetryJob)
        /// A broadcast to a Live Activity channel (``WorkerCore/acceptBroadcast(_:record:)``).
        case broadcast(BroadcastRecord)
        /// Bad input (or a job no pool can send): dead-lettered with the original bytes.
        case rejected(DeadLetterRecord)
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
