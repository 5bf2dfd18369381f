import Logging
import SalvoKafka
import SalvoWorker
import Synchronization

/// Follows the workers' `salvo.campaigns` topic during a run with a control action and merges
/// this run's campaigns' records (CampaignProgressMerger, as `salvo campaign status` does), so
/// the report can hold `sent + cancelled` against the campaign's total. Reads without a consumer
/// group, from the beginning: the topic is compacted and small.
final class LoadTestCampaignProgressReader: Sendable {
    private let reader: KafkaTopicReader
    private let merged: Merged

    /// The merger, shared with the reader's handler.
    private final class Merged: Sendable {
        let merger = Mutex(CampaignProgressMerger())
    }

    init(topic: String, runID: String, client: KafkaClientConfiguration, logger: Logger) throws(LoadTestError) {
        let merged = Merged()
        let prefix = runID
        do {
            reader = try KafkaTopicReader(topic: topic, client: client, logger: logger) { event in
                guard case .message(let message) = event, !message.value.isEmpty,
                    let record = try? CampaignProgressRecord.decode(value: message.value),
                    record.campaignID.hasPrefix(prefix)
                else { return }
                merged.merger.withLock { _ = $0.apply(record) }
            }
        } catch {
            throw LoadTestError(.kafka, "cannot read \(topic)", underlying: error.description)
        }
        self.merged = merged
    }

    /// Assigns every partition from the beginning; fails when the topic does not exist.
    func start() async throws(LoadTestError) {
        do {
            try await reader.start(timeout: .seconds(10))
        } catch {
            throw LoadTestError(.kafka, "cannot read \(reader.topic)", underlying: error.description)
        }
    }

    /// The fleet's counters for a campaign id, nil before any worker reported it.
    func progress(of campaignID: String) -> LoadTestControlResult.Progress? {
        merged.merger.withLock { $0.totals(for: campaignID) }.map { totals in
            LoadTestControlResult.Progress(
                sent: totals.counters.sent, accepted: totals.counters.accepted, cancelled: totals.counters.cancelled,
                finished: totals.counters.finished, feedback: totals.counters.feedback)
        }
    }

    func close() async {
        await reader.close()
    }
}
