import Logging
import SalvoKafka

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the engine verifies before it reads anything: that the state topics its configuration
/// needs exist and are compacted, and that a consumer group with no commits is not about to
/// replay an old backlog. Each refusal is one ``SalvoWorkerError/Code/refusedToStart`` line; both
/// wait for a broker that does not answer yet, as the rest of the start does.
extension WorkerEngine {
    /// Refuses to start when `salvo.progress`, `salvo.control` or `salvo.campaigns` (as
    /// configured) is missing or not compacted, unless the feature is switched off by name; says
    /// which features are off. Settings the broker does not report are a warning: the check
    /// cannot pass them silently, and cannot hold every start on such a broker either.
    func checkStateTopics() async throws {
        if !configuration.topics.keepsCheckpoints {
            logger.warning("job checkpoints off (topics.progress: null): a crash re-sends partly sent jobs whole")
        }
        if !configuration.topics.followsControl {
            logger.warning(
                "campaign control off (topics.control: null): cancel, pause and resume are not followed")
        }
        let requirements = WorkerTopicRequirement.startRequirements(configuration.topics)
        guard !requirements.isEmpty else { return }
        let admin = try KafkaAdmin(configuration: configuration.kafka, logger: logger)
        let findings: [WorkerTopicFinding]
        do {
            findings = try await whenKafkaAnswers("topic settings") { () throws(KafkaError) in
                // A broker answers DescribeConfigs at once or never (librdkafka's embedded mock
                // holds it unanswered): a short wait, so such a broker delays no start for long.
                try await WorkerTopicCheck.findings(requirements, admin: admin, describeTimeout: .seconds(2))
            }
        } catch {
            await admin.close()
            throw error
        }
        await admin.close()
        for finding in findings where finding.isUnverified {
            logger.warning("\(finding)")
        }
        if let wrong = findings.first(where: { !$0.isUnverified }) {
            throw SalvoWorkerError.refusedToStart("\(wrong)")
        }
    }

    /// With `kafka.start_from` left out, refuses to start a lane whose group has no committed
    /// offset on any partition that holds records older than the default start age
    /// (``NewGroupBacklog``). An explicit `kafka.start_from` is the operator's decision: no check.
    func checkNewGroups() async throws {
        guard configuration.startFrom == nil else { return }
        let lanes = [
            (configuration.groupID, [configuration.topics.jobs, configuration.topics.retry]),
            (configuration.groupID + ".priority", [configuration.topics.priority]),
        ]
        for (group, topics) in lanes {
            let check = NewGroupBacklog(group: group, topics: topics, bound: WorkerConfiguration.defaultStartAge)
            let backlog: [KafkaPartitionBacklog]
            do {
                backlog = try await whenKafkaAnswers("the backlog of \(topics.joined(separator: ", "))") {
                    () throws(KafkaError) in
                    try await KafkaBacklog.oldestRecords(of: topics, client: configuration.kafka, logger: logger)
                }
            } catch let error as KafkaError where error.code == .unknownTopic {
                // Nothing to replay; the consumers wait for the topic as before.
                continue
            }
            let now = Int64((Date().timeIntervalSince1970 * 1_000).rounded())
            guard check.verdict(backlog: backlog, committed: [:], nowMilliseconds: now) != .start else { continue }
            let committed = try await whenKafkaAnswers("the committed offsets of \(group)") { () throws(KafkaError) in
                try await KafkaGroupOffsets.committed(
                    group: group, partitions: backlog.map(\.topicPartition), client: configuration.kafka, logger: logger
                )
            }
            if case .refuse(let line) = check.verdict(backlog: backlog, committed: committed, nowMilliseconds: now) {
                throw SalvoWorkerError.refusedToStart(line)
            }
        }
    }
}
