import Logging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension KafkaConsumer {
    /// Where newly assigned partitions without a committed offset start
    /// (``KafkaConsumerConfiguration/startPosition``).
    struct StartPlan: Equatable {
        /// Start offsets for `assign` (logical ones such as `RDKafkaOffset.end` included).
        var offsets: [KafkaTopicPartition: Int64] = [:]
        /// Real offsets the group commits at its next commit even if nothing arrives, so a restart
        /// resumes there instead of looking the time up again.
        var pinned: [KafkaTopicPartition: Int64] = [:]
        /// Record timestamps (milliseconds since 1970) below which records are skipped.
        var cutoffs: [KafkaTopicPartition: Int64] = [:]
    }
}

extension KafkaConsumer.Core {
    /// Asks the coordinator which of `partitions` have no committed offset and plans their start.
    /// `.earliest` needs no question (librdkafka's `auto.offset.reset` does it). When the broker
    /// cannot be asked, a time-based start begins at the oldest record and skips by timestamp:
    /// slower, never wrong.
    func startPlan(for partitions: [KafkaTopicPartition], client: RDKafkaClient) -> KafkaConsumer.StartPlan {
        let position = configuration.startPosition
        guard position != .earliest, !partitions.isEmpty else { return KafkaConsumer.StartPlan() }
        let uncommitted: [KafkaTopicPartition]
        do throws(KafkaError) {
            let committed = try client.committed(partitions, timeout: .seconds(5))
            uncommitted = partitions.filter { (committed[$0] ?? nil) == nil }
        } catch {
            logger.warning(
                "cannot read committed offsets; partitions without one start as auto.offset.reset says",
                metadata: ["group": "\(configuration.groupID)", "error": "\(error)"])
            return KafkaConsumer.StartPlan()
        }
        guard !uncommitted.isEmpty else { return KafkaConsumer.StartPlan() }
        let now = Int64((Date().timeIntervalSince1970 * 1_000).rounded())
        var plan = KafkaConsumer.StartPlan()
        if let cutoff = position.cutoffMilliseconds(now: now) {
            let found: [KafkaTopicPartition: Int64]
            do throws(KafkaError) {
                found = try client.offsets(atTimestamp: cutoff, of: uncommitted, timeout: .seconds(5))
            } catch {
                logger.warning(
                    "cannot look start offsets up by time; reading from the oldest record and skipping by timestamp",
                    metadata: ["group": "\(configuration.groupID)", "error": "\(error)"])
                found = [:]
            }
            for partition in uncommitted {
                let offset = found[partition] ?? RDKafkaOffset.beginning
                plan.offsets[partition] = offset
                if offset >= 0 { plan.pinned[partition] = offset }
                if offset != RDKafkaOffset.end { plan.cutoffs[partition] = cutoff }
            }
        } else {
            for partition in uncommitted { plan.offsets[partition] = RDKafkaOffset.end }
        }
        logger.info(
            "partitions without a committed offset start \(position)",
            metadata: [
                "group": "\(configuration.groupID)", "partitions": "\(uncommitted.sorted())",
                "startOffsets": "\(plan.offsets.sorted { $0.key < $1.key })",
            ])
        return plan
    }
}
