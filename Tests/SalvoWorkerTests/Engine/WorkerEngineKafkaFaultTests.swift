import SalvoKafka
import SalvoMockAPNs
import SalvoWorker
import Testing

/// Faults on the Kafka side: a record the producer cannot hand to Kafka.
@Suite("WorkerEngine under Kafka faults", .serialized)
struct WorkerEngineKafkaFaultTests {
    /// The worker's producer refuses every record over 1,000 bytes (`message.max.bytes`), so the
    /// dead letter of a large bad job is refused for good (MSG_SIZE_TOO_LARGE). It must not hold
    /// the partition: a body-less dead letter naming the job's coordinates takes its place, and
    /// the offset commits past it. (A refusal that may pass, which holds the offset, is a
    /// WorkerCore unit test; a broker outage is a CLI test.)
    @Test("a dead letter Kafka refuses for good becomes a body-less dead letter and the partition commits past it")
    func refusedRecordDoesNotBlock() async throws {
        try await EngineMock.with(scenario: MockScenario()) { mock in
            try await withEngineKafka(partitions: 1) { kafka in
                let bigPayload =
                    #"{"aps":{"alert":{"title":"Salvo","body":""# + String(repeating: "x", count: 2_000) + #""}}}"#
                let badJob =
                    #"{"id":"refused-dead-letter","app":"no-such-app","token":""#
                    + Fixtures.tokenHex(EngineJobs.perUserToken(2))
                    + #"","payload":"# + bigPayload + "}"
                let jobs = [
                    EngineJobs.perUser(id: "before", token: EngineJobs.perUserToken(1)),
                    badJob,
                    EngineJobs.perUser(id: "after", token: EngineJobs.perUserToken(3)),
                ]
                let group = kafka.groupID + ".priority"
                var refusing = WorkerConfiguration.test(kafka: kafka, app: try mock.app())
                refusing.kafkaProducerProperties["message.max.bytes"] = "1000"
                let stats = try await EngineRunner.with(refusing) { runner in
                    _ = try await kafka.produce(jobs, to: kafka.topics.priority)
                    try await runner.waitUntil("every job done and the body-less dead letter acknowledged") {
                        $0.jobsCompleted == 2 && $0.deadLettersAcknowledged == 1
                    }
                    return runner.engine.statistics()
                }
                #expect(stats.jobsRejected == 1)
                #expect(stats.deadLettersWithoutBody == 1)
                #expect(stats.produceFailures == 1, "refused once, not produced again and again")
                #expect(stats.recordsAbandoned == 0)
                #expect(
                    try await kafka.committedOffsets(group: group, topic: kafka.topics.priority, partitions: 1)[0]
                        == .some(3))
                #expect(mock.pushes.acceptedCounts[Fixtures.tokenHex(EngineJobs.perUserToken(3))] == 1)

                let deadLetters = try await kafka.read(kafka.topics.deadLetter, count: 1)
                #expect(deadLetters.count == 1)
                #expect(deadLetters.first?.value.isEmpty == true, "without its body")
                let headers = Dictionary(
                    (deadLetters.first?.headers ?? []).map {
                        ($0.key, String(decoding: $0.value ?? [], as: UTF8.self))
                    }, uniquingKeysWith: { $1 })
                #expect(headers["salvo-reason"] == "unknown_app")
                #expect(headers["salvo-source-topic"] == kafka.topics.priority)
                #expect(headers["salvo-source-offset"] == "1")
                #expect(headers["salvo-body-omitted"] == "MSG_SIZE_TOO_LARGE")
                #expect(headers["salvo-original-size"] == String(badJob.utf8.count))
            }
        }
    }
}
