import SalvoKafka
import Synchronization
import Testing

/// A consumer group: two members split the partitions; one leaves mid-stream and the
/// other takes over without losing anything.
///
/// Assignors: `range` on both backends; `cooperative-sticky` (incremental
/// rebalancing) only on the embedded cluster, because Tansu 0.6 never gives the second member
/// any partition with it. Minimal repro against Tansu, in two shells:
/// `kcat -b $SALVO_TEST_BROKERS -X partition.assignment.strategy=cooperative-sticky -G g t`
/// (the second one stays without assignment while the first keeps all partitions).
@Suite struct KafkaConsumerGroupTests {
    static let cases: [(KafkaTestBackend, KafkaAssignmentStrategy)] = [
        (.embedded, .range), (.tansu, .range), (.embedded, .cooperativeSticky),
    ]

    /// What one member processed, and what `markDone` answered.
    final class Log: Sendable {
        private let entries = Mutex<[(message: KafkaConsumerMessage, result: KafkaOffsetTracker.MarkResult?)]>([])

        func append(_ message: KafkaConsumerMessage, _ result: KafkaOffsetTracker.MarkResult?) {
            entries.withLock { $0.append((message, result)) }
        }

        var all: [(message: KafkaConsumerMessage, result: KafkaOffsetTracker.MarkResult?)] { entries.withLock { $0 } }
    }

    @Test(arguments: Self.cases)
    func membersSplitPartitionsAndTheSurvivorTakesOver(
        backend: KafkaTestBackend, strategy: KafkaAssignmentStrategy
    ) async throws {
        try await withKafkaTestCluster(backend) { cluster in
            let total = 2_000
            let topic = try await cluster.makeTopic(partitions: 4)
            try await KafkaTestTraffic.produce(cluster, topic: topic, count: total, partitions: 4)
            let group = "\(topic)-g"
            var configuration = cluster.consumerConfiguration(group: group, topics: [topic])
            configuration.bufferCapacity = 50
            configuration.assignmentStrategy = strategy

            let leaver = try KafkaConsumer(configuration: configuration, logger: KafkaTestCluster.logger)
            let survivor = try KafkaConsumer(configuration: configuration, logger: KafkaTestCluster.logger)
            let all = Set((0..<4).map { KafkaTopicPartition(topic: topic, partition: Int32($0)) })

            let split = try await KafkaTestTraffic.eventually(timeout: .seconds(45)) {
                let (a, b) = (leaver.assignment, survivor.assignment)
                return !a.isEmpty && !b.isEmpty && a.isDisjoint(with: b) && a.union(b) == all
            }
            #expect(
                split, "both members got a non-empty, disjoint share: \(leaver.assignment) / \(survivor.assignment)")
            let leaverShare = leaver.assignment

            // The leaver processes 100 messages but leaves its last 5 unfinished.
            let leaverLog = Log()
            let leaverTask = Task {
                var received = 0
                for try await message in leaver.messages {
                    received += 1
                    let result = received <= 95 ? leaver.markDone(message) : nil
                    leaverLog.append(message, result)
                    if received == 100 { break }
                }
            }
            let survivorLog = Log()
            let survivorTask = Task {
                for try await message in survivor.messages {
                    survivorLog.append(message, survivor.markDone(message))
                }
            }
            defer { survivorTask.cancel() }

            try await leaverTask.value
            try await leaver.close()
            #expect(leaverLog.all.allSatisfy { leaverShare.contains($0.message.topicPartition) })
            // The stream ends once the consumer closed; its last change gives everything back.
            var changes: [KafkaAssignmentChange] = []
            for await change in leaver.assignmentChanges { changes.append(change) }
            #expect(changes.first.map { if case .assigned = $0 { true } else { false } } == true, "\(changes)")
            if case .revoked(let last)? = changes.last {
                #expect(leaverShare.isSubset(of: Set(last)), "closing revoked the share: \(changes)")
            } else {
                Issue.record("closing must publish a revocation: \(changes)")
            }

            let everything = try await KafkaTestTraffic.eventually(timeout: .seconds(60)) {
                Set((leaverLog.all + survivorLog.all).compactMap { KafkaTestTraffic.index(of: $0.message) }).count
                    == total
            }
            survivorTask.cancel()
            _ = await survivorTask.result
            try await survivor.close()

            let leaverEntries = leaverLog.all
            let survivorEntries = survivorLog.all
            #expect(everything, "union of processed is everything (\(leaverEntries.count) + \(survivorEntries.count))")

            // Messages the leaver did not commit: from its first unfinished offset on, per partition.
            var uncommittedFrom: [KafkaTopicPartition: Int64] = [:]
            for entry in leaverEntries where entry.result != .marked {
                let partition = entry.message.topicPartition
                uncommittedFrom[partition] = min(uncommittedFrom[partition] ?? .max, entry.message.offset)
            }
            let processedByLeaver = Dictionary(grouping: leaverEntries.map(\.message)) {
                "\($0.topicPartition)/\($0.offset)"
            }
            var duplicates = 0
            var seenBySurvivor: [String: KafkaOffsetTracker.MarkResult?] = [:]
            for entry in survivorEntries {
                let key = "\(entry.message.topicPartition)/\(entry.message.offset)"
                if let leaverCopy = processedByLeaver[key]?.first {
                    duplicates += 1
                    let limit = uncommittedFrom[leaverCopy.topicPartition] ?? .max
                    #expect(leaverCopy.offset >= limit, "\(key) was committed by the leaver yet redelivered")
                }
                if let earlier = seenBySurvivor[key] {
                    duplicates += 1
                    #expect(earlier != .marked, "\(key) was done and committed by the survivor yet redelivered")
                }
                seenBySurvivor[key] = entry.result
            }
            print(
                "\(backend) \(strategy): leaver processed \(leaverEntries.count), survivor \(survivorEntries.count), duplicates \(duplicates)"
            )
            #expect(duplicates >= 5, "the leaver's 5 unfinished messages are processed again")
        }
    }
}
