import Crypto
import Logging
import NIOCore
import NIOEmbedded
import SalvoAPNs
import SalvoKafka
import SalvoTestSupport
import Synchronization

@testable import SalvoWorker

/// A pool the test answers by hand: it keeps every submitted request with its outcome callback.
final class ScriptedPool: WorkerDispatchPool {
    struct Sent {
        var request: APNsRequest
        var answer: @Sendable (APNsOutcome) -> Void
    }

    private(set) var unanswered: [Sent] = []
    /// Every request ever submitted, in order.
    private(set) var submittedCount = 0

    func submit(_ requests: [APNsRequest], onOutcome: @escaping @Sendable (Int, APNsOutcome) -> Void) {
        for (index, request) in requests.enumerated() {
            unanswered.append(Sent(request: request, answer: { onOutcome(index, $0) }))
        }
        submittedCount += requests.count
    }

    /// Answers every request waiting, in order, with `outcome(request)`; returns how many.
    @discardableResult
    func answerAll(_ outcome: (APNsRequest) -> APNsOutcome) -> Int {
        let sent = unanswered
        unanswered = []
        for item in sent { item.answer(outcome(item.request)) }
        return sent.count
    }

    static let accepted = APNsOutcome.accepted(apnsID: nil, uniqueID: nil)
    static let serviceUnavailable = APNsOutcome.rejected(APNsResponse(status: 503, reason: .serviceUnavailable))
    static let unreachable = APNsOutcome.failed(APNsError(code: .connectionFailed, message: "connection refused"))
}

/// The worker core on an `EmbeddedEventLoop` and a ``ManualClock`` that move together, with a
/// scripted pool, a captured publisher and captured commits: tests read like timelines.
final class CoreHarness {
    let loop = EmbeddedEventLoop()
    let clock = ManualClock()
    let pool = ScriptedPool()
    let core: WorkerCore<ManualClock>
    let intake: LaneIntake
    let sink: RecordSink
    private var nextOffset: [String: Int64] = [:]

    static let topics = WorkerTopics()

    /// `window`: the pool's stream credit is `connections × streams`; the window adds 64, or the
    /// credit again when it is smaller.
    init(
        streams: Int = 100, checkpoints: CheckpointAccess = .none,
        configure: (inout WorkerConfiguration) -> Void = { _ in }
    ) throws {
        var poolConfiguration = APNsConnectionPool.Configuration()
        poolConfiguration.connectionCount = 1
        poolConfiguration.maximumStreamsPerConnection = streams
        let credential = try APNsTokenCredential(
            keyID: "KEY1234567", teamID: "TEAM123456", privateKey: P256.Signing.PrivateKey())
        let app = WorkerApp(bundleID: "com.example.news", credential: .token(credential), pool: poolConfiguration)
        var configuration = WorkerConfiguration(
            kafka: KafkaClientConfiguration(brokers: ["127.0.0.1:1"]), apps: ["news": app], deviceRateLimit: nil,
            operations: nil)
        configuration.retry.backoff = RetryBackoff(initialDelay: .milliseconds(500), maximumDelay: .seconds(60))
        // The manual clock does not move while requests are in flight: every round trip would be
        // zero. The flight limit has its own tests (AdaptiveWindowTests).
        configuration.lanes.queueDelayTarget = nil
        configure(&configuration)
        let decoder = try JobDecoder(configuration: configuration.decoder)
        intake = LaneIntake(
            jobDecoder: decoder, retryDecoder: RetryRecordDecoder(jobDecoder: decoder), topics: configuration.topics,
            environments: ["news": [.production]])
        let sink = RecordSink()
        self.sink = sink
        core = try WorkerCore(
            configuration: configuration, pools: [WorkerPoolKey(app: "news", environment: .production): pool],
            clock: clock,
            eventLoop: loop, publisher: { record in sink.published.withLock { $0.append(record) } },
            markDone: { source in sink.done.withLock { $0.append(source) } }, sharedStatistics: { _ in },
            checkpoints: checkpoints,
            logger: Logger(label: "test"))
    }

    var statistics: WorkerStatistics {
        core.publishStatistics()
        return core.statistics
    }

    /// Hands records to the core as a consumer task would; returns whether the task may pull
    /// again at once (false: it waits for lane room or the records queue).
    @discardableResult
    /// `timestampMilliseconds`: the records' Kafka timestamp.
    func consume(
        _ texts: [String], topic: String = CoreHarness.topics.jobs, timestampMilliseconds: Int64? = nil
    ) -> Bool {
        let records = texts.map { text -> DecodedRecord in
            let offset = nextOffset[topic, default: 0]
            nextOffset[topic] = offset + 1
            let message = KafkaConsumerMessage(
                topicPartition: KafkaTopicPartition(topic: topic, partition: 0), offset: offset, key: nil,
                value: Array(text.utf8),
                headers: [], timestampMilliseconds: timestampMilliseconds)
            return intake.decode(message)
        }
        let resumed = Mutex(false)
        core.accept(records, resume: { resumed.withLock { $0 = true } })
        loop.run()
        return resumed.withLock { $0 }
    }

    /// Moves the clock and the loop's time together, running what falls due.
    func advance(by duration: Duration) {
        clock.advance(by: duration)
        loop.advanceTime(
            by: .nanoseconds(
                Int64(duration.components.seconds) * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000))
    }

    /// Answers everything in flight and runs the loop.
    @discardableResult
    func answer(_ outcome: (APNsRequest) -> APNsOutcome) -> Int {
        let count = pool.answerAll(outcome)
        loop.run()
        return count
    }

    /// Acknowledges (or refuses) every record handed to the publisher so far.
    @discardableResult
    func acknowledgeRecords(
        _ result: (PendingRecord) -> Result<KafkaDeliveryReport, KafkaError> = { _ in .success(.acknowledged) }
    ) -> [PendingRecord] {
        let records = sink.published.withLock { records in
            defer { records = [] }
            return records
        }
        for record in records { core.recordDelivered(record, result(record)) }
        loop.run()
        return records
    }

    var committed: [SourcePosition] { sink.done.withLock { $0 } }

    /// Records handed to the publisher and not yet acknowledged by the test.
    var published: [PendingRecord] { sink.published.withLock { $0 } }

    static func campaign(_ id: String, tokens: Range<Int>) -> String {
        var text = #"{"id":""# + id + #"","app":"news","payload":{"aps":{"alert":"hi"}},"tokens":["#
        for n in tokens {
            if n > tokens.lowerBound { text += "," }
            text += "\"" + Fixtures.tokenHex(n) + "\""
        }
        return text + "]}"
    }
}

/// What the core hands out: records to produce and positions to commit.
final class RecordSink: Sendable {
    let published = Mutex<[PendingRecord]>([])
    let done = Mutex<[SourcePosition]>([])
}

extension KafkaDeliveryReport {
    static let acknowledged = KafkaDeliveryReport(topic: "t", partition: 0, offset: 0)
}
