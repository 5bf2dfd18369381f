import SalvoKafka
import SalvoMockAPNs
import SalvoWorker
import Testing

/// Faults on the Kafka side: a record the producer cannot hand to Kafka.
@Suite("WorkerEngine under Kafka faults", .serialized)
struct WorkerEngineKafkaFaultTests {
    /// The first worker's producer refuses every record over 1,000 bytes (`message.max.bytes`),
    /// so the dead letter of a large bad job fails on every attempt. Its offset must stay
    /// uncommitted (the good job after it completes but cannot be committed past it), the drain
    /// must still end, and a second worker, able to produce it, must find the job again.
    @Test("a dead letter Kafka refuses is produced again, holds its job's offset, and a restarted worker delivers it")
    func refusedRecordHoldsTheCommit() async throws {
        try await EngineMock.with(scenario: MockScenario()) { mock in
            try await withEngineKafka(partitions: 1) { kafka in
                let bigPayload = #"{"aps":{"alert":{"title":"Salvo","body":""# + String(repeating: "x", count: 2_000) + #""}}}"#
                let badJob = #"{"id":"refused-dead-letter","app":"no-such-app","token":""# + Fixtures.tokenHex(EngineJobs.perUserToken(2))
                    + #"","payload":"# + bigPayload + "}"
                let jobs = [
                    EngineJobs.perUser(id: "before", token: EngineJobs.perUserToken(1)),
                    badJob,
                    EngineJobs.perUser(id: "after", token: EngineJobs.perUserToken(3)),
                ]
                let group = kafka.groupID + ".priority"
                let app = try mock.app()

                var refusing = WorkerConfiguration.test(kafka: kafka, app: app)
                refusing.kafkaProducerProperties["message.max.bytes"] = "1000"
                refusing.drainDeadline = .seconds(3)
                let first = try await EngineRunner.with(refusing) { runner in
                    _ = try await kafka.produce(jobs, to: kafka.topics.priority)
                    try await runner.waitUntil("both good jobs delivered and the dead letter refused twice") {
                        $0.delivered == 2 && $0.produceFailures >= 2
                    }
                    // Past the consumer's one-second commit interval, so the good job after the
                    // refused one would be committed by now if anything let it.
                    try await Task.sleep(for: .milliseconds(1_500))
                    return runner.engine.statistics()
                }
                #expect(first.jobsRejected == 1)
                #expect(first.jobsCompleted == 2, "the two good jobs; the bad one waits for its dead letter")
                #expect(first.deadLettersAcknowledged == 0)
                #expect(first.produceFailures >= 2, "produced again after failing")

                let second = try await EngineRunner.with(WorkerConfiguration.test(kafka: kafka, app: app)) { runner in
                    try await runner.waitUntil("the dead letter acknowledged") { $0.deadLettersAcknowledged == 1 && $0.jobsCompleted == 1 }
                    return runner.engine.statistics()
                }
                // The first worker's commit stopped before the refused job: had it gone past,
                // this worker would find nothing to do. (Committed offsets are read only at the
                // end: a reader joins the worker's group, and Tansu then never assigned the
                // priority partition to the next worker.)
                #expect(second.jobsConsumed == 2, "the second worker starts at the refused job")
                #expect(second.jobsRejected == 1)
                #expect(second.produceFailures == 0)
                // Read after the worker left: a reader in the worker's group would rebalance it.
                #expect(try await kafka.committedOffsets(group: group, topic: kafka.topics.priority, partitions: 1)[0] == .some(3))
                #expect(mock.pushes.acceptedCounts[Fixtures.tokenHex(EngineJobs.perUserToken(3))] == 2, "the job after it is sent again")
                #expect(mock.pushes.acceptedCounts[Fixtures.tokenHex(EngineJobs.perUserToken(1))] == 1)

                let deadLetters = try await kafka.read(kafka.topics.deadLetter, count: 1)
                #expect(deadLetters.count == 1)
                #expect(deadLetters.first.map { String(decoding: $0.value, as: UTF8.self) } == badJob)
                let reason = deadLetters.first?.headers.first { $0.key == "salvo-reason" }?.value
                #expect(reason.map { String(decoding: $0, as: UTF8.self) } == "unknown_app")
            }
        }
    }
}
