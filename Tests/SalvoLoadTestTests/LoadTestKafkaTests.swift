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
            let producer = try KafkaProducer(
                configuration: KafkaProducerConfiguration(client: broker.client), logger: LoadTestBroker.logger)
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
                    object["app"] as? String == scenario.app, object["priority"] as? Int != 7
                else { continue }
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

    @Test("a producer that cannot keep up: jobs keep their scheduled times and the lateness is recorded, not slipped")
    func slowProducerShowsAsScheduleLag() async throws {
        try await LoadTestBroker.with(topics: 2) { broker, topics in
            var scenario = LoadTestScenario()
            scenario.phases = [.init(durationSeconds: 0.1, rate: 1000)]
            scenario.topics.priority = topics[0]
            scenario.topics.campaign = topics[1]
            scenario.drainSeconds = 0
            // One message in librdkafka's queue at a time, each waiting 20 ms for its batch: at
            // most ~50 jobs/s against a schedule of 1,000/s.
            var configuration = KafkaProducerConfiguration(client: broker.client)
            configuration.queueMaxMessages = 1
            configuration.linger = .milliseconds(20)
            let producer = try KafkaProducer(configuration: configuration, logger: LoadTestBroker.logger)
            let run = LoadTestRun(
                scenario: scenario, producer: producer, observe: .init(progress: false), logger: LoadTestBroker.logger)
            let report: LoadTestReport
            do {
                report = try await run.run()
            } catch {
                await producer.shutdown()
                throw error
            }
            await producer.shutdown()

            #expect(report.snapshot.expectations.jobsProduced == 100)
            #expect(report.snapshot.scheduleLag.count == 100)
            #expect(report.snapshot.scheduleLag.max >= 500, "lag max \(report.snapshot.scheduleLag.max) ms")

            var consumerConfiguration = KafkaConsumerConfiguration(
                client: broker.client, groupID: "\(topics[0])-read", topics: [topics[0]])
            consumerConfiguration.offsetReset = .earliest
            let consumer = try KafkaConsumer(configuration: consumerConfiguration, logger: LoadTestBroker.logger)
            var scheduled: [Int64] = []
            let reading = Task {
                var values: [Int64] = []
                for try await message in consumer.messages {
                    let header = message.headers.first { $0.key == LoadTestJob.scheduledHeader }?.value ?? []
                    values.append(Int64(String(decoding: header, as: UTF8.self)) ?? -1)
                    if values.count == 100 { break }
                }
                return values
            }
            let timeout = Task {
                try await Task.sleep(for: .seconds(30))
                reading.cancel()
            }
            scheduled = (try? await reading.value) ?? []
            timeout.cancel()
            try await consumer.close()
            #expect(scheduled.count == 100)
            // Every job is stamped with its slot in the 1 ms grid from the start, however late it left.
            #expect(Set(scheduled) == Set((0..<100).map { report.startMilliseconds + Int64($0) }))
        }
    }
}
