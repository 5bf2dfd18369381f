import Foundation
import SalvoAPNs
import SalvoKafka
import SalvoLoadTest
import SalvoMockAPNs
import Testing

/// A small scenario produced to a real broker (the embedded cluster, or Tansu with
/// `SALVO_TEST_BROKERS`), read back and answered by a stand-in worker.
@Suite("Generator against a broker")
struct LoadTestKafkaTests {
    @Test("jobs read back match the expectations; feedback and dead letters are matched; schedule is open-loop")
    func smallScenario() async throws {
        try await LoadTestBroker.with(topics: 4) { broker, topics in
            var scenario = TestScenarios.small(rate: 100, seconds: 1)
            scenario.topics.priority = topics[0]
            scenario.topics.campaign = topics[1]
            scenario.topics.feedback = topics[2]
            scenario.topics.deadLetters = topics[3]
            scenario.drainSeconds = 30
            let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(client: broker.client), logger: LoadTestBroker.logger)
            let run = LoadTestRun(
                scenario: scenario, producer: producer, observe: .init(kafka: broker.client, progress: false),
                logger: LoadTestBroker.logger)
            let worker = try FakeWorker(broker: broker, scenario: scenario, run: run)
            let serving = Task { await worker.serve() }
            let report: LoadTestReport
            do {
                report = try await run.run()
            } catch {
                serving.cancel()
                await serving.value
                await producer.shutdown()
                throw error
            }
            serving.cancel()
            await serving.value
            await producer.shutdown()

            let expected = report.snapshot.expectations
            #expect(report.problems == [])
            #expect(report.completed)
            #expect(expected.jobsProduced == run.plan.jobs + expected.duplicateJobs)
            #expect(report.snapshot.observations.produceAcknowledged == expected.jobsProduced)
            let jobs = worker.jobs.all
            #expect(jobs.count == expected.jobsProduced)
            #expect(Set(jobs.filter { $0.topic == topics[1] }.map(\.key)).count == 2, "two campaign bursts")

            // Count tokens by the mock's verdict in what was actually on the topics.
            var valid = 0
            var invalid = 0
            var seen: Set<String> = []
            for message in jobs {
                guard let object = try? JSONSerialization.jsonObject(with: Data(message.value)) as? [String: Any],
                      let id = object["id"] as? String, seen.insert(id).inserted, object["payload"] != nil,
                      object["app"] as? String == scenario.app, object["priority"] as? Int != 7 else { continue }
                for text in (object["tokens"] as? [String]) ?? [object["token"] as? String].compactMap({ $0 }) {
                    guard let token = try? DeviceToken(hex: text) else { continue }
                    if scenario.mockTokens.outcome(for: token) == .valid { valid += 1 } else { invalid += 1 }
                }
            }
            #expect(valid == expected.deliveredTotal)
            #expect(invalid == expected.feedbackTotal)
            #expect(report.snapshot.observations.deadLetters == expected.deadLetters)
            #expect(report.snapshot.observations.feedback == expected.feedback)

            // Open loop: each job's scheduled time is the run start plus its arrival's offset.
            let arrivals = Array(LoadTestSchedule(phases: scenario.phases))
            for message in jobs {
                let id = String(decoding: message.key ?? [], as: UTF8.self)
                let index = try #require(Int(id.split(separator: "-").last ?? ""))
                let header = message.headers.first { $0.key == LoadTestJob.scheduledHeader }?.value
                let scheduled = try #require(header.flatMap { Int64(String(decoding: $0, as: UTF8.self)) })
                #expect(scheduled == report.startMilliseconds + arrivals[index].offsetNanoseconds / 1_000_000)
            }
        }
    }
}
