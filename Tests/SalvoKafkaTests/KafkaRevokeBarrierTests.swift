import SalvoKafka
import Synchronization
import Testing

/// A revoke waits for the application's in-flight work (``KafkaRevokeBarrier``): what the old
/// member finishes while the barrier holds is committed before the partitions move, so the new
/// member never receives it. With `cooperative-sticky` (embedded cluster only: Tansu cannot run
/// it) only the partitions that move are revoked; with `range` every partition is.
@Suite struct KafkaRevokeBarrierTests {
    static let cases: [(KafkaTestBackend, KafkaAssignmentStrategy)] = [
        (.tansu, .range), (.embedded, .cooperativeSticky),
    ]

    /// The first member's messages, received but "in flight" until the barrier finishes them.
    final class InFlight: Sendable {
        private let state = Mutex<
            (held: [KafkaConsumerMessage], finished: Set<String>, barriers: [[KafkaTopicPartition]])
        >(([], [], []))

        func hold(_ message: KafkaConsumerMessage) { state.withLock { $0.held.append(message) } }

        /// Marks the held messages of `partitions` done; returns how many.
        func finish(_ partitions: [KafkaTopicPartition], on consumer: KafkaConsumer) -> Int {
            state.withLock { state in
                state.barriers.append(partitions)
                let moving = Set(partitions)
                var finished = 0
                state.held.removeAll { message in
                    guard moving.contains(message.topicPartition) else { return false }
                    consumer.markDone(message)
                    state.finished.insert("\(message.topicPartition)/\(message.offset)")
                    finished += 1
                    return true
                }
                return finished
            }
        }

        var finished: Set<String> { state.withLock { $0.finished } }
        var barriers: [[KafkaTopicPartition]] { state.withLock { $0.barriers } }
    }

    /// Lets the barrier find the consumer it belongs to (made after the barrier).
    final class ConsumerBox: Sendable {
        let consumer = Mutex<KafkaConsumer?>(nil)
    }

    @Test(arguments: Self.cases)
    func workFinishedInTheBarrierIsCommittedBeforeThePartitionsMove(
        backend: KafkaTestBackend, strategy: KafkaAssignmentStrategy
    ) async throws {
        try await withKafkaTestCluster(backend) { cluster in
            let topic = try await cluster.makeTopic(partitions: 4)
            try await KafkaTestTraffic.produce(cluster, topic: topic, count: 400, partitions: 4)
            var configuration = cluster.consumerConfiguration(group: "\(topic)-g", topics: [topic])
            configuration.assignmentStrategy = strategy
            let inFlight = InFlight()
            let box = ConsumerBox()
            let barrier = KafkaRevokeBarrier(limit: .seconds(10)) { partitions, done in
                // The answers come a little later, on another thread, as APNs answers would.
                Task {
                    try? await Task.sleep(for: .milliseconds(300))
                    if let consumer = box.consumer.withLock({ $0 }) { _ = inFlight.finish(partitions, on: consumer) }
                    done()
                }
            }
            let first = try KafkaConsumer(
                configuration: configuration, logger: KafkaTestCluster.logger, revokeBarrier: barrier)
            box.consumer.withLock { $0 = first }
            let firstTask = Task {
                for try await message in first.messages { inFlight.hold(message) }
            }
            defer { firstTask.cancel() }
            let all = Set((0..<4).map { KafkaTopicPartition(topic: topic, partition: Int32($0)) })
            #expect(try await KafkaTestTraffic.eventually(timeout: .seconds(45)) { first.assignment == all })
            // Let the first member take messages of every partition before the second joins.
            try await Task.sleep(for: .seconds(1))

            let second = try KafkaConsumer(configuration: configuration, logger: KafkaTestCluster.logger)
            let received = Mutex<[String]>([])
            let secondTask = Task {
                for try await message in second.messages {
                    received.withLock { $0.append("\(message.topicPartition)/\(message.offset)") }
                    second.markDone(message)
                }
            }
            defer { secondTask.cancel() }
            let split = try await KafkaTestTraffic.eventually(timeout: .seconds(60)) { !second.assignment.isEmpty }
            #expect(split, "the second member got partitions")
            // Everything the first member held of the moved partitions was finished in the barrier:
            // the second member starts after it and receives only what is produced now.
            try await KafkaTestTraffic.produce(cluster, topic: topic, count: 100, partitions: 4, first: 400)
            let receiving = try await KafkaTestTraffic.eventually(timeout: .seconds(30)) {
                received.withLock { !$0.isEmpty }
            }
            #expect(receiving, "the second member receives new messages")
            let barriers = inFlight.barriers
            #expect(!barriers.isEmpty, "the barrier ran before partitions moved")
            let finished = inFlight.finished
            #expect(!finished.isEmpty, "the barrier finished held messages")
            let redelivered = Set(received.withLock { $0 }).intersection(finished)
            #expect(
                redelivered.isEmpty,
                "messages finished in the barrier reached the new member: \(redelivered.sorted().prefix(5))")
            if strategy == .cooperativeSticky {
                let revoked = Set(barriers.flatMap { $0 })
                #expect(revoked.count < 4, "cooperative-sticky revokes only what moves: \(revoked)")
                #expect(
                    revoked.isSubset(of: second.assignment), "the revoked partitions are the ones the new member got")
            } else {
                #expect(Set(barriers.first ?? []) == all, "range (eager) revokes every partition first")
            }
            firstTask.cancel()
            secondTask.cancel()
            try await second.close()
            try await first.close()
        }
    }
}
