import Logging
import SalvoKafka
import Synchronization

/// Keeps the latest ``PartitionCheckpoint`` of every partition of this worker's consumer groups:
/// reads the progress topic from the beginning at start, then follows it live, so a partition
/// that moves here (a rebalance, a restart) finds which of its offsets its previous owner
/// completed and how far it got with its open jobs. Every worker reads the whole topic; it holds
/// one record per group and partition.
final class CheckpointFollower: Sendable {
    private struct Shared {
        var checkpoints: [SourcePosition.Partition: PartitionCheckpoint] = [:]
        var isCaughtUp = false
    }

    let topic: String
    private let groups: Set<String>
    /// The per-user lane's group: its newest write is kept apart (``newestWrite(of:)``).
    private let priorityGroup: String
    private let shared = Mutex(Shared())
    /// The newest `written_at_ms` of a checkpoint with offsets, per lane (campaign, per-user).
    private let newestCampaignWrite = Atomic<Int64>(.min)
    private let newestPerUserWrite = Atomic<Int64>(.min)
    private let reader = Mutex<KafkaTopicReader?>(nil)
    private let logger: Logger

    /// `groups`: the consumer groups whose checkpoints count (the worker's two lane groups), of
    /// which `priorityGroup` is the per-user lane's.
    init(
        topic: String, groups: Set<String>, priorityGroup: String, client: KafkaClientConfiguration, logger: Logger
    ) throws(KafkaError) {
        self.topic = topic
        self.groups = groups
        self.priorityGroup = priorityGroup
        self.logger = logger
        var readerClient = client
        readerClient.clientID = client.clientID + "-progress"
        let reader = try KafkaTopicReader(topic: topic, client: readerClient, logger: logger) { [weak self] event in
            self?.handle(event)
        }
        self.reader.withLock { $0 = reader }
    }

    /// Starts reading. Throws `.unknownTopic` when the topic is missing, and what the metadata
    /// request met when the broker does not answer (the caller may try again).
    func start(timeout: Duration) async throws(KafkaError) {
        guard let reader = reader.withLock({ $0 }) else {
            throw KafkaError(code: .shutdown, message: "the checkpoint follower is closed")
        }
        try await reader.start(timeout: timeout)
    }

    /// Waits (at most `timeout`) until the topic was read to the end it had at start; returns
    /// whether it was. Later records keep arriving either way.
    func waitUntilCaughtUp(timeout: Duration) async -> Bool {
        let started = ContinuousClock.now
        // Polled: this runs once, at start.
        while !shared.withLock({ $0.isCaughtUp }) {
            guard started.duration(to: .now) < timeout, !Task.isCancelled else { return false }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    /// The latest checkpoint recorded for `partition`.
    func checkpoint(for partition: SourcePosition.Partition) -> PartitionCheckpoint? {
        shared.withLock { $0.checkpoints[partition] }
    }

    /// The newest `written_at_ms` of the checkpoints with offsets of `lane`'s group.
    func newestWrite(of lane: Lane) -> Int64 {
        lane == .priority
            ? newestPerUserWrite.load(ordering: .relaxed) : newestCampaignWrite.load(ordering: .relaxed)
    }

    func close() async {
        let reader = reader.withLock { reader in
            defer { reader = nil }
            return reader
        }
        await reader?.close()
    }

    private func handle(_ event: KafkaTopicReaderEvent) {
        switch event {
        case .message(let message):
            for group in groups {
                guard
                    let checkpoint = PartitionCheckpoint.decode(key: message.key, value: message.value, group: group)
                else { continue }
                shared.withLock { $0.checkpoints[checkpoint.partitionKey] = checkpoint }
                if checkpoint.offsets != nil {
                    let written = checkpoint.writtenAtMilliseconds
                    if group == priorityGroup {
                        newestPerUserWrite.max(written, ordering: .relaxed)
                    } else {
                        newestCampaignWrite.max(written, ordering: .relaxed)
                    }
                }
                return
            }
        case .caughtUp:
            let count = shared.withLock { shared in
                shared.isCaughtUp = true
                return shared.checkpoints.count
            }
            logger.info("job checkpoints read to their end", metadata: ["topic": "\(topic)", "partitions": "\(count)"])
        case .error(let error):
            logger.warning("reading the checkpoint topic failed", metadata: ["topic": "\(topic)", "error": "\(error)"])
        }
    }
}
