import SalvoKafka
import SalvoWorker
import Testing

/// Bad input never blocks a partition: each bad job is dead-lettered with its reason and its
/// original bytes, the good jobs around it are delivered, and the offset moves past all of them.
@Suite("WorkerEngine with bad input", .serialized)
struct WorkerEngineBadInputTests {
    @Test(
        "the rejection corpus interleaved with good jobs: each bad one in the DLQ with its reason, good ones delivered, offsets committed past them"
    )
    func badJobsAreDeadLettered() async throws {
        try await EngineMock.with { mock in
            try await withEngineKafka(partitions: 1) { kafka in
                var messages: [[UInt8]] = []
                var expectedReasons: [String] = []
                var goodTokens: [String] = []
                for (index, bad) in JobRejectionCorpusTests.corpus.enumerated() {
                    messages.append(bad.bytes)
                    expectedReasons.append(bad.reason.code)
                    let token = EngineJobs.perUserToken(index)
                    messages.append(Array(EngineJobs.perUser(id: "good-\(index)", token: token).utf8))
                    goodTokens.append(Fixtures.tokenHex(token))
                }
                // No sandbox endpoint is configured for the app.
                messages.append(
                    Array(
                        #"{"id":"sandboxed","app":"news","environment":"sandbox","token":"\#(Fixtures.tokenHex(1))","payload":{}}"#
                            .utf8))
                expectedReasons.append("environment_not_configured")
                // One malformed token in a campaign: dead-lettered alone, the others are sent.
                let campaignTokens = [Fixtures.tokenHex(2), Fixtures.tokenHex(3)]
                messages.append(
                    Array(
                        #"{"id":"mixed","app":"news","tokens":["\#(campaignTokens[0])","not-a-token","\#(campaignTokens[1])"],"payload":{}}"#
                            .utf8))
                expectedReasons.append("invalid_token")
                goodTokens += campaignTokens
                let corpusCount = JobRejectionCorpusTests.corpus.count
                #expect(corpusCount >= 20)
                let jobCount = messages.count

                let stats = try await EngineRunner.with(.test(kafka: kafka, app: try mock.app())) { runner in
                    _ = try await kafka.produce(bytes: messages, to: kafka.topics.jobs, partition: 0)
                    try await runner.waitUntil("all \(jobCount) records done") {
                        $0.jobsCompleted + $0.jobsRejected == jobCount
                    }
                    return runner.engine.statistics()
                }
                #expect(stats.jobsRejected == corpusCount + 1)
                #expect(stats.deadLettersAcknowledged == expectedReasons.count)
                #expect(Set(mock.pushes.accepted).symmetricDifference(goodTokens).isEmpty)
                #expect(mock.pushes.acceptedCount == goodTokens.count)

                let deadLetters = try await kafka.read(kafka.topics.deadLetter, count: expectedReasons.count)
                let reasons = deadLetters.map { message in
                    message.headers.first { $0.key == "salvo-reason" }.map {
                        String(decoding: $0.value ?? [], as: UTF8.self)
                    } ?? "?"
                }
                #expect(reasons.sorted() == expectedReasons.sorted())
                let jobValues = Set(
                    deadLetters.filter { message in
                        message.headers.contains { $0.key == "salvo-kind" && $0.value == Array("job".utf8) }
                    }.map(\.value))
                let missing = JobRejectionCorpusTests.corpus.filter { !jobValues.contains($0.bytes) }.map(\.name)
                #expect(missing.isEmpty, "the original bytes of every bad job are dead-lettered")

                let committed = try await kafka.committedOffsets(
                    group: kafka.groupID, topic: kafka.topics.jobs, partitions: 1)
                #expect(committed[0] == .some(Int64(jobCount)))
            }
        }
    }
}
