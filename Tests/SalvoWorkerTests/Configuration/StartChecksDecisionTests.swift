import SalvoKafka
import Testing

@testable import SalvoWorker

/// The decisions behind the start checks, without a broker: `kafka.start_from`, the new-group
/// guard, and the comparison of a topic with its requirement.
@Suite("Start checks: start_from, new groups, topic requirements")
struct StartChecksDecisionTests {
    @Test(
        "kafka.start_from values",
        arguments: [
            ("earliest", KafkaStartPosition.earliest), ("LATEST", .latest), ("1h", .newerThan(.seconds(3_600))),
            (" 24h ", .newerThan(.seconds(86_400))),
            ("2026-03-01T00:00:00Z", .since(millisecondsSince1970: 1_772_323_200_000)),
        ])
    func startFromParses(_ text: String, _ expected: KafkaStartPosition) throws {
        #expect(try ConfigurationStartFrom.parse(text) == expected)
    }

    @Test("bad kafka.start_from values name the key", arguments: ["", "yesterday", "1700000000000", "0s", "700h"])
    func startFromRefused(_ text: String) {
        #expect {
            _ = try ConfigurationStartFrom.parse(text)
        } throws: { error in
            (error as? ConfigurationProblem)?.path == "kafka.start_from"
        }
    }

    let partition = KafkaTopicPartition(topic: "salvo.jobs.priority", partition: 0)
    let now: Int64 = 1_800_000_000_000
    var check: NewGroupBacklog {
        NewGroupBacklog(group: "workers.priority", topics: ["salvo.jobs.priority"], bound: .seconds(3_600))
    }

    func backlog(ageSeconds: Int64, records: Int64) -> KafkaPartitionBacklog {
        KafkaPartitionBacklog(
            topicPartition: partition, oldestOffset: 10, oldestTimestampMilliseconds: now - ageSeconds * 1_000,
            highWatermark: 10 + records)
    }

    @Test("a group without commits facing a record older than the bound is refused, in one line")
    func oldBacklogWithoutCommitsRefused() {
        let verdict = check.verdict(
            backlog: [backlog(ageSeconds: 3 * 86_400 + 4 * 3_600, records: 5_000)], committed: [partition: nil],
            nowMilliseconds: now)
        guard case .refuse(let line) = verdict else {
            Issue.record("not refused: \(verdict)")
            return
        }
        #expect(
            line.hasPrefix(
                "group workers.priority has no committed offsets and salvo.jobs.priority holds 5000 records, the oldest 3d 4h old (more than 1h)"
            ), "\(line)")
        #expect(line.contains("kafka.start_from") && line.contains("group_id") && !line.contains("\n"))
    }

    @Test("a young backlog, or any commit, starts")
    func youngBacklogOrCommitsStart() {
        #expect(
            check.verdict(backlog: [backlog(ageSeconds: 600, records: 20)], committed: [:], nowMilliseconds: now)
                == .start)
        #expect(
            check.verdict(
                backlog: [backlog(ageSeconds: 86_400, records: 20)], committed: [partition: 12], nowMilliseconds: now)
                == .start)
        #expect(check.verdict(backlog: [], committed: [:], nowMilliseconds: now) == .start)
    }

    let progress = WorkerTopicRequirement(role: .progress, name: "salvo.progress")
    let jobs = WorkerTopicRequirement(role: .jobs, name: "salvo.jobs")

    @Test("a topic's findings: missing, delete policy, too few partitions or replicas, unverified")
    func topicFindings() {
        let one = KafkaTopicMetadata(name: "salvo.progress", partitionCount: 1, replicationFactor: 1)
        #expect(WorkerTopicCheck.findings(progress, metadata: nil, configs: nil).map(\.problem) == [.missing])
        #expect(
            WorkerTopicCheck.findings(progress, metadata: one, configs: .success(["cleanup.policy": "delete"]))
                .map(\.problem) == [.notCompacted(cleanupPolicy: "delete")])
        #expect(
            WorkerTopicCheck.findings(progress, metadata: one, configs: .success(["cleanup.policy": "compact,delete"]))
                .map(\.problem) == [.notCompacted(cleanupPolicy: "compact,delete")])
        #expect(
            WorkerTopicCheck.findings(progress, metadata: one, configs: .success(["cleanup.policy": "compact"]))
                .isEmpty)
        #expect(
            WorkerTopicCheck.findings(progress, metadata: one, configs: .success([:])).allSatisfy { $0.isUnverified })
        let lane = KafkaTopicMetadata(name: "salvo.jobs", partitionCount: 4, replicationFactor: 1)
        #expect(
            WorkerTopicCheck.findings(
                jobs, metadata: lane, configs: .success([:]), minimumPartitions: 12, minimumReplicationFactor: 3
            ).map(\.problem) == [.tooFewPartitions(found: 4, needed: 12), .tooFewReplicas(found: 1, needed: 3)])
        // Partition counts concern the lane topics only.
        #expect(
            WorkerTopicCheck.findings(
                progress, metadata: one, configs: .success(["cleanup.policy": "compact"]), minimumPartitions: 12
            ).isEmpty)
    }

    @Test("the lines name the topic, the key and the fix")
    func findingLines() {
        #expect(
            WorkerTopicFinding(requirement: progress, problem: .missing).description
                == "topic salvo.progress (topics.progress) does not exist: create it with salvo topics create, or set topics.progress: null (runs without job checkpoints)"
        )
        #expect(
            WorkerTopicFinding(requirement: progress, problem: .notCompacted(cleanupPolicy: "delete")).description
                .contains("kafka-configs.sh --alter --entity-type topics --entity-name salvo.progress"))
    }

    @Test("switched-off features leave their topics out of the requirements")
    func switchedOff() {
        var topics = WorkerTopics()
        #expect(WorkerTopicRequirement.startRequirements(topics).map(\.role) == [.control, .campaigns, .progress])
        topics.followsControl = false
        topics.keepsCheckpoints = false
        #expect(WorkerTopicRequirement.startRequirements(topics).isEmpty)
        #expect(WorkerTopicRequirement.all(topics).map(\.role) == [.jobs, .priority, .feedback, .retry, .dlq])
    }
}
