import SalvoAPNs
import SalvoKafka

/// One job as produced, with what the worker is expected to make of it.
public struct LoadTestJob: Sendable {
    /// The job's `id` (unique per run; a duplicate repeats its original's).
    public var id: String
    public var lane: LoadTestLane
    /// When the job was due, milliseconds since 1970: latency is measured from here, not from
    /// when it was actually produced (no coordinated omission).
    public var scheduledAtMilliseconds: Int64
    /// Nanoseconds after the run's start when the job was due.
    public var offsetNanoseconds: Int64
    /// The Kafka message value, exactly as produced.
    public var value: [UInt8]
    /// The tokens of a good job with their mock fates; empty for a bad job.
    public var tokens: [LoadTestTokenSource.Choice]
    /// The dead-letter reason code the worker must give a bad job; nil for a good one.
    public var deadLetterReason: String?
    /// A second production of an earlier job (same id, same bytes).
    public var isDuplicate: Bool
    /// The ``LoadTestScenario/Campaign/name`` of a named campaign's job, else nil.
    public var campaign: String?
    /// The channel of a broadcast job (lane ``LoadTestLane/broadcast``), else nil.
    public var broadcastChannel: String?

    public init(
        id: String, lane: LoadTestLane, scheduledAtMilliseconds: Int64, offsetNanoseconds: Int64, value: [UInt8],
        tokens: [LoadTestTokenSource.Choice], deadLetterReason: String?, isDuplicate: Bool, campaign: String? = nil
    ) {
        self.id = id
        self.lane = lane
        self.scheduledAtMilliseconds = scheduledAtMilliseconds
        self.offsetNanoseconds = offsetNanoseconds
        self.value = value
        self.tokens = tokens
        self.deadLetterReason = deadLetterReason
        self.isDuplicate = isDuplicate
        self.campaign = campaign
    }

    /// Kafka header carrying ``scheduledAtMilliseconds`` as decimal text.
    public static let scheduledHeader = "salvo-loadtest-scheduled-ms"
    /// Kafka header carrying the run id, so a consumer can tell runs apart.
    public static let runHeader = "salvo-loadtest-run"

    /// The message for `topic`, keyed by the job id (the worker's dead letters use the same key).
    public func message(topic: String, runID: String) -> KafkaProducerMessage {
        KafkaProducerMessage(
            topic: topic, key: Array(id.utf8), value: value,
            headers: [
                KafkaHeader(key: Self.scheduledHeader, value: String(scheduledAtMilliseconds)),
                KafkaHeader(key: Self.runHeader, value: runID),
            ])
    }
}
