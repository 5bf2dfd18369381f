import Foundation
import Logging
import SalvoKafka

/// Reads the feedback or the dead-letter topic during a run and reports this run's records to
/// the measurement. Its consumer group is private to the run and starts at the earliest offset,
/// so nothing written before the group joined is missed; records of other runs are told apart by
/// the job id, which starts with the run id.
public struct LoadTestTopicReader: Sendable {
    public enum Kind: Sendable, Hashable {
        case feedback
        case deadLetters
    }

    public let kind: Kind
    private let consumer: KafkaConsumer
    private let measurement: LoadTestMeasurement

    /// A reader of `topic` in a consumer group named after the run.
    public init(
        kind: Kind, topic: String, client: KafkaClientConfiguration, measurement: LoadTestMeasurement,
        logger: Logger = Logger(label: "salvo.loadtest")
    ) throws(LoadTestError) {
        var configuration = KafkaConsumerConfiguration(
            client: client, groupID: "\(measurement.runID)-\(kind == .feedback ? "feedback" : "dlq")", topics: [topic])
        configuration.offsetReset = .earliest
        configuration.sessionTimeout = .seconds(6)
        configuration.heartbeatInterval = .milliseconds(500)
        do {
            self.consumer = try KafkaConsumer(configuration: configuration, logger: logger)
        } catch {
            throw LoadTestError(.kafka, "cannot read \(topic)", underlying: error.description)
        }
        self.kind = kind
        self.measurement = measurement
    }

    /// Reads until cancelled, then closes the consumer. Returns the failure that stopped it early.
    public func run() async -> LoadTestError? {
        var failure: LoadTestError?
        do {
            for try await message in consumer.messages {
                handle(message)
            }
        } catch {
            failure = LoadTestError(.kafka, "reading \(consumer.configuration.topics.joined())", underlying: "\(error)")
        }
        try? await consumer.close()
        return failure
    }

    func handle(_ message: KafkaConsumerMessage) {
        let prefix = measurement.runID + "-"
        switch kind {
        case .feedback:
            guard let event = Self.feedbackEvent(message.value), event.jobID.hasPrefix(prefix) else { return }
            measurement.observeFeedback(token: event.token, reason: event.reason)
        case .deadLetters:
            guard Self.belongs(message, runID: measurement.runID) else { return }
            let reason = message.headers.first { $0.key == "salvo-reason" }?.value.map {
                String(decoding: $0, as: UTF8.self)
            }
            measurement.observeDeadLetter(reason: reason ?? "unknown")
        }
    }

    /// Token, reason and job id of a feedback event (docs/jobs.md), nil if it is not one.
    static func feedbackEvent(_ value: [UInt8]) -> (token: String, reason: String, jobID: String)? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(value)) as? [String: Any],
            let token = object["token"] as? String, let reason = object["reason"] as? String,
            let jobID = object["job_id"] as? String
        else { return nil }
        return (token, reason, jobID)
    }

    /// A dead letter is this run's when its key or `salvo-job-id` starts with the run id, or —
    /// for a job too broken to have an id — when the original bytes contain it.
    static func belongs(_ message: KafkaConsumerMessage, runID: String) -> Bool {
        let prefix = Array((runID + "-").utf8)
        if let key = message.key, key.starts(with: prefix) { return true }
        if let id = message.headers.first(where: { $0.key == "salvo-job-id" })?.value, id.starts(with: prefix) {
            return true
        }
        return message.value.firstRange(of: prefix) != nil
    }
}
