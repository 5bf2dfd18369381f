import NIOEmbedded
import SalvoAPNs
import SalvoKafka
import SalvoTestSupport
import Synchronization
import Testing

@testable import SalvoWorker

/// Records to Kafka: a record Kafka refuses for good never blocks its partition, a
/// refusal that may pass is produced again, the queue to the producer is bounded, and a retry
/// record's malformed tokens are dead-lettered whether it is due or not.
@Suite("WorkerCore: records to Kafka")
struct WorkerCoreRecordsTests {
    static let tooLarge = KafkaError(
        code: .messageRejected, message: "Broker: Message size too large", rdKafkaErrorName: "MSG_SIZE_TOO_LARGE")
    static let unreachable = KafkaError(
        code: .brokerUnavailable, message: "Local: All broker connections are down",
        rdKafkaErrorName: "_ALL_BROKERS_DOWN", isRetriable: true)

    @Test(
        "a dead letter too large for its topic is replaced by a body-less one naming the source; the partition commits past it"
    )
    func bodylessDeadLetter() throws {
        let harness = try CoreHarness()
        let unknownApp = #"{"id":"poison","app":"nope","token":"\#(Fixtures.tokenHex(1))","payload":{"aps":{}}}"#
        harness.consume([unknownApp, CoreHarness.campaign("after", tokens: 0..<3)])
        harness.answer { _ in ScriptedPool.accepted }
        #expect(
            harness.committed.map(\.offset) == [1],
            "the valid job after it completes; the poison record waits for its dead letter")

        let refused = harness.acknowledgeRecords { _ in .failure(Self.tooLarge) }
        #expect(refused.count == 1)
        let replacement = try #require(harness.published.first)
        #expect(replacement.isBodyless)
        #expect(replacement.topic == CoreHarness.topics.deadLetter)
        #expect(replacement.record.value.isEmpty)
        #expect(replacement.record.header("salvo-source-topic") == CoreHarness.topics.jobs)
        #expect(replacement.record.header("salvo-source-partition") == "0")
        #expect(replacement.record.header("salvo-source-offset") == "0")
        #expect(replacement.record.header("salvo-reason") == "unknown_app")
        #expect(replacement.record.header("salvo-body-omitted") == "MSG_SIZE_TOO_LARGE")
        #expect(replacement.record.header("salvo-original-size") == String(unknownApp.utf8.count))
        #expect(replacement.record.header("salvo-original-sha256")?.count == 64)

        harness.acknowledgeRecords()
        #expect(Set(harness.committed.map(\.offset)) == [0, 1])
        let stats = harness.statistics
        #expect(stats.deadLettersWithoutBody == 1)
        #expect(stats.pendingRecords == 0)
    }

    @Test(
        "when even the body-less dead letter is refused for good, it is abandoned and counted so the partition moves on"
    )
    func lastResort() throws {
        let harness = try CoreHarness()
        harness.consume([#"{"id":"poison","app":"nope","token":"\#(Fixtures.tokenHex(1))","payload":{"aps":{}}}"#])
        let denied = KafkaError(
            code: .unauthorized, message: "Broker: Topic authorization failed",
            rdKafkaErrorName: "TOPIC_AUTHORIZATION_FAILED")
        harness.acknowledgeRecords { _ in .failure(denied) }
        harness.acknowledgeRecords { _ in .failure(denied) }
        #expect(harness.published.isEmpty)
        #expect(harness.committed.map(\.offset) == [0])
        #expect(harness.statistics.recordsAbandoned == 1)
    }

    @Test("a refusal that may pass is produced again after a pause, and the job waits for it")
    func retriableRefusal() throws {
        let harness = try CoreHarness()
        harness.consume([#"{"id":"poison","app":"nope","token":"\#(Fixtures.tokenHex(1))","payload":{"aps":{}}}"#])
        let first = harness.acknowledgeRecords { _ in .failure(Self.unreachable) }
        #expect(harness.published.isEmpty, "not at once")
        harness.advance(by: .milliseconds(200))
        #expect(harness.published.map(\.record) == first.map(\.record), "the same record, produced again")
        #expect(harness.committed.isEmpty)
        harness.acknowledgeRecords()
        #expect(harness.committed.map(\.offset) == [0])
    }

    @Test("intake pauses while the records queue to the producer is full and resumes once it is half empty")
    func boundedRecordsQueue() throws {
        let harness = try CoreHarness()
        let bound = WorkerCore<ManualClock>.maximumPendingRecords
        let broken = Array(repeating: "not json", count: bound)
        #expect(!harness.consume(broken), "the consumer waits")
        #expect(harness.published.count == bound)
        // Acknowledge half: the consumer may pull again.
        let records = harness.published
        harness.sink.published.withLock { $0 = [] }
        for record in records.prefix(bound / 2 - 1) { harness.core.recordDelivered(record, .success(.acknowledged)) }
        harness.loop.run()
        #expect(harness.core.records.hasWaiters, "one short of half empty: still waiting")
        harness.core.recordDelivered(records[bound / 2 - 1], .success(.acknowledged))
        harness.loop.run()
        #expect(!harness.core.records.hasWaiters, "the waiting consumer was resumed")
        #expect(harness.consume(["not json"]))
        for record in records.suffix(bound / 2) { harness.core.recordDelivered(record, .success(.acknowledged)) }
        harness.acknowledgeRecords()
        #expect(harness.statistics.pendingRecords == 0)
        #expect(harness.committed.count == bound + 1)
    }

    @Test("a retry record not yet due: its malformed tokens are dead-lettered now, its valid ones held")
    func retryRecordNotDue() throws {
        let harness = try CoreHarness()
        let due = UTCTimestamp.now().millisecondsSince1970 + 60_000
        let record =
            #"{"id":"r1","app":"news","payload":{"aps":{}},"tokens":["\#(Fixtures.tokenHex(1))","zz-not-a-token"],"retry":{"attempt":2,"due_at_ms":\#(due)}}"#
        harness.consume([record], topic: CoreHarness.topics.retry)
        let deadLetters = harness.published
        #expect(deadLetters.count == 1)
        #expect(deadLetters.first?.kind == .deadLetter)
        #expect(harness.pool.unanswered.isEmpty, "the valid token waits for its due time")
        #expect(harness.statistics.retryDepth == 1)
    }
}
