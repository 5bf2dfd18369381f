import Logging
import SalvoKafka
import Synchronization

/// Writes a worker's campaign progress records to `salvo.campaigns` every `interval`.
///
/// The ledger stays with its owner (the worker core, on its event loop): `collect` is how the
/// publisher asks it for the changed records (e.g. `loop.submit { core.campaigns.takeChangedProgress(now:) }`).
/// Records are whole counts, not increments, so a record that failed to be written is simply kept
/// and written next round unless a newer one of the same key replaced it.
package final class CampaignProgressPublisher: Sendable {
    package let topic: String
    /// Default: 1 s.
    package let interval: Duration
    private let producer: KafkaProducer
    private let collect: @Sendable (UTCTimestamp) async -> [CampaignProgressRecord]
    private let unsent = Mutex<[CampaignProgressRecord.Key: CampaignProgressRecord]>([:])
    private let logger: Logger

    package init(
        topic: String,
        producer: KafkaProducer,
        interval: Duration = .seconds(1),
        logger: Logger = Logger(label: "salvo.campaigns.progress"),
        collect: @escaping @Sendable (UTCTimestamp) async -> [CampaignProgressRecord]
    ) {
        self.topic = topic
        self.producer = producer
        self.interval = max(interval, .milliseconds(10))
        self.logger = logger
        self.collect = collect
    }

    /// Publishes every `interval` until the task is cancelled, then once more, so the final
    /// counts of a draining worker are written.
    package func run() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            await publishOnce()
        }
        await publishOnce()
    }

    /// Records that failed to be written and wait for the next round.
    package var unsentCount: Int { unsent.withLock { $0.count } }

    /// Collects the changed records and writes them with what failed before; returns how many
    /// were written.
    @discardableResult
    package func publishOnce() async -> Int {
        let fresh = await collect(.now())
        let batch = unsent.withLock { unsent in
            for record in fresh { unsent[record.recordKey] = record }
            defer { unsent = [:] }
            return Array(unsent.values)
        }
        guard !batch.isEmpty else { return 0 }
        let failed = await withTaskGroup(of: CampaignProgressRecord?.self) { group in
            for record in batch {
                group.addTask { [producer, topic] in
                    do {
                        _ = try await producer.send(
                            KafkaProducerMessage(topic: topic, key: record.key, value: record.encodedValue()))
                        return nil
                    } catch {
                        return record
                    }
                }
            }
            var failed: [CampaignProgressRecord] = []
            for await record in group { if let record { failed.append(record) } }
            return failed
        }
        if !failed.isEmpty {
            unsent.withLock { unsent in
                for record in failed where unsent[record.recordKey] == nil { unsent[record.recordKey] = record }
            }
            logger.warning(
                "campaign progress not written; kept for the next round",
                metadata: ["records": "\(failed.count)", "topic": "\(topic)"])
        }
        return batch.count - failed.count
    }
}
