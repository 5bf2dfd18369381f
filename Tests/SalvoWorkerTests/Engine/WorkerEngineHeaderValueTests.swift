import SalvoKafka
import SalvoMockAPNs
import SalvoWorker
import Testing

/// A job field that would become a header value HTTP/2 forbids is dead-lettered at once and never
/// sent: otherwise `"collapse_id": "abc "` would go out, be reset with PROTOCOL_ERROR and be
/// retried for minutes while its partition's commit waited.
@Suite("WorkerEngine with header values HTTP/2 forbids", .serialized)
struct WorkerEngineHeaderValueTests {
    @Test("a collapse_id with a trailing space is dead-lettered without a send; the next job is delivered")
    func forbiddenCollapseID() async throws {
        try await EngineMock.with { mock in
            try await withEngineKafka(partitions: 1) { kafka in
                let good = EngineJobs.perUserToken(1)
                let messages = [
                    #"{"id":"spaced","app":"news","token":"\#(Fixtures.tokenHex(EngineJobs.perUserToken(0)))","collapse_id":"abc ","payload":{}}"#,
                    EngineJobs.perUser(id: "good", token: good),
                ]
                let stats = try await EngineRunner.with(.test(kafka: kafka, app: try mock.app())) { runner in
                    _ = try await kafka.produce(messages, to: kafka.topics.jobs, partition: 0)
                    try await runner.waitUntil("both records done") { $0.jobsCompleted + $0.jobsRejected == 2 }
                    return runner.engine.statistics()
                }
                #expect(stats.jobsRejected == 1)
                #expect(mock.pushes.accepted == [Fixtures.tokenHex(good)])
                #expect(mock.server.stats().streamsTotal == 1, "the bad job never reached the mock")

                let deadLetters = try await kafka.read(kafka.topics.deadLetter, count: 1)
                let reason = deadLetters.first?.headers.first { $0.key == "salvo-reason" }?.value
                #expect(reason.map { String(decoding: $0, as: UTF8.self) } == "invalid_collapse_id")
                let committed = try await kafka.committedOffsets(
                    group: kafka.groupID, topic: kafka.topics.jobs, partitions: 1)
                #expect(committed[0] == .some(2))
            }
        }
    }
}
