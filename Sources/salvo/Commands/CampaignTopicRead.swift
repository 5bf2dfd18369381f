import Logging
import SalvoKafka
import SalvoWorker
import Synchronization

/// Reading the campaign topics from the CLI: each is read whole (they are compacted and small),
/// without a consumer group, to the end it had when the command started.
enum CampaignTopicRead {
    /// The commands in force on the control topic.
    static func control(
        topic: String, client: KafkaClientConfiguration, timeout: Duration, logger: Logger
    ) async throws -> CampaignControlState {
        let follower = try CampaignControlFollower(topic: topic, client: client, logger: logger)
        do {
            try await follower.start(timeout: timeout)
            let state = try await follower.caughtUp(timeout: timeout)
            await follower.close()
            return state
        } catch {
            await follower.close()
            throw failure(error, topic: topic, client: client)
        }
    }

    static func failure(_ error: any Error, topic: String, client: KafkaClientConfiguration) -> CommandFailure {
        guard let error = error as? KafkaError else {
            return CommandFailure("reading \(topic): \(error)", exit: CommandExit.status(of: error) ?? .software)
        }
        if error.code == .unknownTopic {
            return CommandFailure(
                "the topic \(topic) does not exist on \(client.brokerList): run salvo topics create",
                exit: .configuration)
        }
        return CommandFailure(
            "cannot read \(topic) from \(client.brokerList): \(error.message)", exit: CommandExit.status(of: error))
    }

    /// Follows the progress topic, folding every record into a merger.
    final class Progress: Sendable {
        private let topic: String
        private let reader = Mutex<KafkaTopicReader?>(nil)
        private let merger = Mutex(CampaignProgressMerger())
        private let malformed = Mutex(0)
        private let caughtUpSignal: AsyncStream<Void>
        private let caughtUpContinuation: AsyncStream<Void>.Continuation

        init(topic: String, client: KafkaClientConfiguration, logger: Logger) throws(KafkaError) {
            self.topic = topic
            (caughtUpSignal, caughtUpContinuation) = AsyncStream.makeStream(
                of: Void.self, bufferingPolicy: .bufferingNewest(1))
            let reader = try KafkaTopicReader(topic: topic, client: client, logger: logger) { [weak self] event in
                self?.handle(event)
            }
            self.reader.withLock { $0 = reader }
        }

        private func handle(_ event: KafkaTopicReaderEvent) {
            switch event {
            case .message(let message):
                guard !message.value.isEmpty else { return }
                if let record = try? CampaignProgressRecord.decode(value: message.value) {
                    merger.withLock { _ = $0.apply(record) }
                } else {
                    malformed.withLock { $0 += 1 }
                }
            case .caughtUp:
                caughtUpContinuation.yield()
            case .error:
                break
            }
        }

        /// Starts reading and returns once the topic was read to its end.
        func start(timeout: Duration) async throws {
            guard let reader = reader.withLock({ $0 }) else { return }
            try await reader.start(timeout: timeout)
            let signal = caughtUpSignal
            let reached = await withTaskGroup(of: Bool.self) { group in
                group.addTask {
                    for await _ in signal { return true }
                    return false
                }
                group.addTask {
                    try? await Task.sleep(for: timeout)
                    return false
                }
                let first = await group.next() ?? false
                group.cancelAll()
                return first
            }
            guard reached else {
                throw KafkaError(code: .timedOut, message: "\(topic) was not read to its end within \(timeout)")
            }
        }

        func totals(for campaignID: String) -> CampaignProgressTotals? {
            merger.withLock { $0.totals(for: campaignID) }
        }

        var malformedRecords: Int { malformed.withLock { $0 } }

        func close() async {
            let reader = reader.withLock { reader in
                defer { reader = nil }
                return reader
            }
            await reader?.close()
            caughtUpContinuation.finish()
        }
    }
}
