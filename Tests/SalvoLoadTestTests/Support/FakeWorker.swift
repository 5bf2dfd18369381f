import Foundation
import SalvoAPNs
import SalvoKafka
import SalvoLoadTest
import SalvoMockAPNs
import Synchronization

/// Stands in for the worker (not available to this module's tests): reads the job topics, judges
/// each job the way docs/jobs.md says the worker will, writes feedback events and dead letters,
/// and reports valid tokens as delivered. Keeps every job message it read.
final class FakeWorker: Sendable {
    let jobs = LockedList<KafkaConsumerMessage>()
    private let consumer: KafkaConsumer
    private let producer: KafkaProducer
    private let scenario: LoadTestScenario
    private let run: LoadTestRun

    init(broker: LoadTestBroker, scenario: LoadTestScenario, run: LoadTestRun) throws {
        var configuration = KafkaConsumerConfiguration(
            client: broker.client, groupID: "fake-worker-\(run.runID)",
            topics: [scenario.topics.priority, scenario.topics.campaign])
        configuration.offsetReset = .earliest
        configuration.sessionTimeout = .seconds(6)
        configuration.heartbeatInterval = .milliseconds(500)
        consumer = try KafkaConsumer(configuration: configuration, logger: LoadTestBroker.logger)
        producer = try KafkaProducer(
            configuration: KafkaProducerConfiguration(client: broker.client), logger: LoadTestBroker.logger)
        self.scenario = scenario
        self.run = run
    }

    /// Serves until cancelled, then closes its clients.
    func serve() async {
        do {
            for try await message in consumer.messages {
                jobs.append(message)
                try await handle(message)
            }
        } catch {}
        try? await consumer.close()
        await producer.shutdown(timeout: .seconds(5))
    }

    private func handle(_ message: KafkaConsumerMessage) async throws {
        let object = try? JSONSerialization.jsonObject(with: Data(message.value)) as? [String: Any]
        guard let object else { return try await deadLetter(message, reason: "malformed_json") }
        guard object["app"] as? String == scenario.app else {
            return try await deadLetter(message, reason: "unknown_app")
        }
        guard object["payload"] != nil else { return try await deadLetter(message, reason: "missing_field") }
        if let priority = object["priority"] as? Int, ![10, 5, 1].contains(priority) {
            return try await deadLetter(message, reason: "invalid_priority")
        }
        let id = object["id"] as? String ?? ""
        let texts = (object["tokens"] as? [String]) ?? [object["token"] as? String].compactMap { $0 }
        let tokens = texts.compactMap { try? DeviceToken(hex: $0) }
        guard tokens.count == texts.count else { return try await deadLetter(message, reason: "invalid_token") }
        for token in tokens {
            switch scenario.mockTokens.outcome(for: token) {
            case .valid:
                run.observeRecord(
                    apnsID: APNsID.deterministic(jobID: id, token: token), receivedAtMilliseconds: Self.now())
            case .unregistered:
                try await feedback(token: token, reason: "Unregistered", jobID: id)
            case .badDeviceToken:
                try await feedback(token: token, reason: "BadDeviceToken", jobID: id)
            }
        }
    }

    private func feedback(token: DeviceToken, reason: String, jobID: String) async throws {
        let value =
            #"{"token":"\#(token.hex)","app":"\#(scenario.app)","reason":"\#(reason)","status":400,"job_id":"\#(jobID)"}"#
        _ = try await producer.send(
            KafkaProducerMessage(topic: scenario.topics.feedback, key: Array(token.hex.utf8), value: Array(value.utf8)))
    }

    private func deadLetter(_ message: KafkaConsumerMessage, reason: String) async throws {
        _ = try await producer.send(
            KafkaProducerMessage(
                topic: scenario.topics.deadLetters, key: message.key, value: message.value,
                headers: [
                    KafkaHeader(key: "salvo-kind", value: "job"), KafkaHeader(key: "salvo-reason", value: reason),
                ]))
    }

    private static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
}

/// A list appended to from any task.
final class LockedList<Element: Sendable>: Sendable {
    private let storage = Mutex<[Element]>([])
    func append(_ element: Element) { storage.withLock { $0.append(element) } }
    var all: [Element] { storage.withLock { $0 } }
}
