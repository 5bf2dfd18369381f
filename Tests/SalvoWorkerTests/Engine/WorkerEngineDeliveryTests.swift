import Foundation
import SalvoAPNs
import SalvoKafka
import SalvoMockAPNs
import SalvoWorker
import Testing

/// The whole pipeline against Kafka (embedded, or Tansu with `SALVO_TEST_BROKERS`) and the mock
/// APNs: every valid token accepted exactly once, every dead token's feedback event, every offset
/// committed.
@Suite("WorkerEngine delivery", .serialized)
struct WorkerEngineDeliveryTests {
    @Test(
        "a 10,000-token campaign and 500 per-user jobs with dead tokens: each valid token once, predicted feedback, offsets committed"
    )
    func campaignAndPerUserJobs() async throws {
        let fate = MockTokenFate(unregistered: 0.01, badDeviceToken: 0.005)
        var scenario = MockScenario()
        scenario.tokens = fate
        try await EngineMock.with(scenario: scenario) { mock in
            try await withEngineKafka(partitions: 2) { kafka in
                let campaignTokens = 0..<10_000
                let perUserTokens = (0..<500).map(EngineJobs.perUserToken)
                let invalid = EngineJobs.invalid(Array(campaignTokens) + perUserTokens, fate: fate)
                let valid = Set((Array(campaignTokens) + perUserTokens).map(Fixtures.tokenHex)).subtracting(invalid)
                #expect(invalid.count > 100)

                let configuration = WorkerConfiguration.test(kafka: kafka, app: try mock.app())
                let statistics = try await EngineRunner.with(configuration) { runner in
                    let campaign = try await kafka.produce(
                        [EngineJobs.campaign(id: "campaign-1", tokens: campaignTokens)], to: kafka.topics.jobs)
                    let perUser = try await kafka.produce(
                        perUserTokens.enumerated().map {
                            EngineJobs.perUser(id: "user-\($0.offset)", token: $0.element)
                        }, to: kafka.topics.priority)
                    try await runner.waitUntil("all 501 jobs completed") { $0.jobsCompleted == 501 }
                    #expect(runner.engine.isReady)
                    try await runner.shutdown()
                    return (runner.engine.statistics(), campaign + perUser)
                }
                let (stats, reports) = statistics

                let accepted = mock.pushes.acceptedCounts
                #expect(Set(accepted.keys) == valid)
                #expect(accepted.values.allSatisfy { $0 == 1 }, "a healthy run sends each token once")
                #expect(stats.delivered == valid.count)
                #expect(stats.invalidTokens == invalid.count)
                #expect(stats.feedbackAcknowledged == invalid.count)
                #expect(stats.jobsRejected == 0)

                let feedback = try await kafka.read(kafka.topics.feedback, count: invalid.count)
                #expect(feedback.count == invalid.count)
                #expect(Set(feedback.compactMap { $0.key.map { String(decoding: $0, as: UTF8.self) } }) == invalid)
                let reasons = Set(
                    feedback.map { String(decoding: $0.value, as: UTF8.self) }.map { text in
                        text.contains(#""reason":"Unregistered""#)
                            ? "Unregistered" : text.contains(#""reason":"BadDeviceToken""#) ? "BadDeviceToken" : "other"
                    })
                #expect(reasons == ["Unregistered", "BadDeviceToken"])

                for topic in [kafka.topics.jobs, kafka.topics.priority] {
                    let group = topic == kafka.topics.priority ? kafka.groupID + ".priority" : kafka.groupID
                    let committed = try await kafka.committedOffsets(group: group, topic: topic, partitions: 2)
                    for partition in Set(reports.filter { $0.topic == topic }.map(\.partition)) {
                        let last = reports.filter { $0.topic == topic && $0.partition == partition }.map(\.offset)
                            .max()!
                        #expect(
                            committed[partition] == .some(last + 1),
                            "\(topic)[\(partition)] committed past its last job")
                    }
                }
            }
        }
    }

    @Test("over TLS with provider-token authentication, the mock verifying every JWT")
    func tlsWithTokenAuthentication() async throws {
        // The mock's own generated material: a CA, a server certificate for 127.0.0.1, a .p8 key.
        try await EngineMock.withTLS { mock, app in
            try await withEngineKafka(partitions: 1) { kafka in
                try await EngineRunner.with(.test(kafka: kafka, app: app)) { runner in
                    _ = try await kafka.produce(
                        [EngineJobs.campaign(id: "tls-campaign", tokens: 0..<300)], to: kafka.topics.jobs)
                    _ = try await kafka.produce(
                        (0..<20).map { EngineJobs.perUser(id: "tls-\($0)", token: EngineJobs.perUserToken($0)) },
                        to: kafka.topics.priority)
                    try await runner.waitUntil("21 jobs completed") { $0.jobsCompleted == 21 }
                    #expect(runner.engine.statistics().delivered == 320)
                }
                #expect(mock.pushes.acceptedCount == 320)
                #expect(mock.pushes.rejected.isEmpty, "every JWT verified")
            }
        }
    }
}
