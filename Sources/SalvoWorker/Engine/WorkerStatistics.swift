/// Counts of what a ``WorkerEngine`` did since it started: what tests assert on and what the demo
/// prints. A snapshot, published by the engine's core every 50 ms and when it stops, so reading
/// it never touches the dispatch path.
public struct WorkerStatistics: Sendable, Hashable {
    /// Job records read from Kafka (jobs and retry records), decoded or not.
    public var jobsConsumed = 0
    /// Jobs whose every notification is terminal and whose records Kafka acknowledged: their
    /// offsets were marked done.
    public var jobsCompleted = 0
    /// Records that could not be decoded (dead-lettered whole).
    public var jobsRejected = 0
    /// Notifications APNs accepted.
    public var delivered = 0
    /// Notifications answered with a dead-token reason (feedback produced).
    public var invalidTokens = 0
    /// Notifications (and malformed campaign tokens) dead-lettered.
    public var deadLettered = 0
    /// Notifications held by the in-process retry scheduler after a retryable answer.
    public var retried = 0
    /// Notifications written to the retry topic (memory bound, long delay, or shutdown).
    public var handedOff = 0
    /// Notifications sent again at once because APNs never processed them.
    public var replayed = 0
    /// Sends delayed by the app or device rate limit.
    public var rateLimited = 0
    /// Feedback events Kafka acknowledged.
    public var feedbackAcknowledged = 0
    /// Dead letters Kafka acknowledged.
    public var deadLettersAcknowledged = 0
    /// Retry records Kafka acknowledged.
    public var retryRecordsAcknowledged = 0
    /// Records Kafka refused (each is produced again, or replaced by a body-less dead letter).
    public var produceFailures = 0
    /// Records Kafka refused for good (too large, not authorized), replaced by a body-less dead letter.
    public var deadLettersWithoutBody = 0
    /// Body-less dead letters Kafka refused too, given up so their partitions commit.
    public var recordsAbandoned = 0
    /// Records handed to the producer and not yet acknowledged.
    public var pendingRecords = 0
    /// Times an APNs pool turned unhealthy (a brownout or outage).
    public var poolsTurnedUnhealthy = 0
    /// APNs pools unhealthy or probing now.
    public var unhealthyPools = 0
    /// Notifications parked in unhealthy pools (not yet an attempt).
    public var parked = 0
    /// Notifications of revoked partitions dropped unsent: jobs not begun, and anything left once
    /// the partitions were given up (the new owner sends it).
    public var droppedOnRevoke = 0
    /// Jobs of revoked partitions still waiting for an answer or an acknowledgement when the
    /// partitions were given up (the revoke barrier's limit passed, or the assignment was lost).
    public var unsettledOnRevoke = 0
    /// Unsent notifications of begun jobs (and held, delayed, parked or replay work) of partitions
    /// being revoked, handed to the retry topic so their jobs commit before the partitions move.
    public var handedOffOnRevoke = 0
    /// Notifications skipped because a job's checkpoint recorded them done (a job read again
    /// after a crash or a lost assignment).
    public var resumedFromCheckpoint = 0
    /// Partition checkpoints handed to the producer.
    public var checkpointsWritten = 0
    /// Jobs (records) a checkpoint recorded complete, completed without sending when read again.
    public var skippedByCheckpoint = 0
    /// Times a job reached `kafka.max_unconfirmed_sends` and waited for a checkpoint's acknowledgement.
    public var checkpointWaits = 0
    /// Times the worker stopped taking new work because commits failed with too much completed
    /// work uncommitted (``WorkerConfiguration/maximumUncommittedNotifications``).
    public var commitGateClosures = 0
    /// Notifications not yet sent of jobs that had begun sending, handed to the retry topic by a
    /// drain so that those jobs commit.
    public var handedOffOnDrain = 0
    /// Notifications of cancelled campaigns finished without sending (docs/campaigns.md).
    public var cancelled = 0
    /// Notifications of paused campaigns handed to the retry topic (the hold queue full, or held
    /// longest): not an attempt; they come back a few seconds later.
    public var heldHandedOff = 0
    /// Notifications handed to the APNs pools and not yet answered.
    public var inFlight = 0
    /// The most the worker keeps in flight now (`lanes.queue_delay_target`).
    public var flightLimit = 0
    /// Notifications waiting in the lanes.
    public var queued = 0
    /// Notifications held by the retry scheduler for another attempt.
    public var retryDepth = 0
    /// Sends a rate limit delays (not an attempt).
    public var delayed = 0
    /// Notifications of paused campaigns held in memory, and resumed ones waiting to go out.
    public var held = 0

    public init() {}
}
