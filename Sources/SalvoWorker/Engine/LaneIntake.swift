import NIOCore
import SalvoAPNs
import SalvoKafka

/// Turns a lane consumer's Kafka records into ``DecodedRecord``s, on the consumer's task (off the
/// core's event loop): jobs through the ``JobDecoder``, retry-topic records through the
/// ``RetryRecordDecoder`` (and the per-user topic's hand-offs through the job decoder); anything
/// that cannot be sent becomes its dead letter. A job topic's
/// record may be a broadcast to a Live Activity channel (``JobDecoder/decodeAny(_:)``); retry
/// records never are (a broadcast is retried from memory, ``WorkerCore/acceptBroadcast(_:record:)``).
struct LaneIntake: Sendable {
    let jobDecoder: JobDecoder
    let retryDecoder: RetryRecordDecoder
    let topics: WorkerTopics
    /// The environments each app has a pool for, a bit per kind (``bit(_:)``): a `Set` of the
    /// enum hashed its raw string once per job.
    let environments: AppTable<UInt8>

    init(
        jobDecoder: JobDecoder, retryDecoder: RetryRecordDecoder, topics: WorkerTopics,
        environments: [String: Set<APNsEnvironment.Kind>]
    ) {
        self.jobDecoder = jobDecoder
        self.retryDecoder = retryDecoder
        self.topics = topics
        self.environments = AppTable(environments.mapValues { $0.reduce(0) { $0 | Self.bit($1) } })
    }

    private static func bit(_ kind: APNsEnvironment.Kind) -> UInt8 {
        switch kind {
        case .production: 1
        case .sandbox: 2
        }
    }

    func decode(_ message: KafkaConsumerMessage) -> DecodedRecord {
        // The configuration's own string for the topic: every later comparison of this position's
        // topic (ledger, commit, metrics lane) is then equal by identity, without reading the text.
        let isPriority = message.topic == topics.priority
        let isRetry = !isPriority && message.topic == topics.retry
        let topic =
            isPriority
            ? topics.priority : isRetry ? topics.retry : message.topic == topics.jobs ? topics.jobs : message.topic
        let source = SourcePosition(topic: topic, partition: message.partition, offset: message.offset)
        let lane: Lane = isPriority ? .priority : .campaign
        let bytes = message.payload
        let content: DecodedRecord.Content
        if isRetry {
            switch retryDecoder.decode(bytes) {
            case .success(let retryJob):
                let job = retryJob.job
                content = routable(job.app, job.environment, job.id, bytes, source) ?? .retry(retryJob)
            case .failure(let rejection):
                content = .rejected(.rejectedJob(bytes, rejection, source: source, at: .now()))
            }
        } else {
            // The per-user topic also carries per-user work handed back by a revoke or a drain.
            switch jobDecoder.decodeAny(bytes, readsRetry: isPriority) {
            case .success(.push(let job)):
                content = routable(job.app, job.environment, job.id, bytes, source) ?? .job(job)
            case .success(.retry(let retryJob)):
                let job = retryJob.job
                content = routable(job.app, job.environment, job.id, bytes, source) ?? .retry(retryJob)
            case .success(.broadcast(let job)):
                content =
                    routable(job.app, job.environment, job.id, bytes, source)
                    ?? .broadcast(BroadcastRecord(job: job, message: bytes))
            case .failure(let rejection):
                content = .rejected(.rejectedJob(bytes, rejection, source: source, at: .now()))
            }
        }
        return DecodedRecord(
            content: content, source: source, lane: lane, timestampMilliseconds: message.timestampMilliseconds)
    }

    /// nil when a pool serves the job's app and environment; otherwise its dead letter
    /// (`environment_not_configured`).
    private func routable(
        _ app: String, _ environment: APNsEnvironment.Kind, _ jobID: String, _ bytes: ByteBuffer,
        _ source: SourcePosition
    ) -> DecodedRecord.Content? {
        if let kinds = environments[app], kinds & Self.bit(environment) != 0 { return nil }
        let reason = DeadLetterReason(
            code: "environment_not_configured",
            message: "app \"\(app)\" has no \(environment.rawValue) endpoint on this worker")
        return .rejected(
            DeadLetterRecord(
                subject: .job(bytes), reason: reason, attempts: 0, app: app, jobID: jobID, source: source,
                failedAt: .now()))
    }
}
