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

    /// Whether the commit a revoke makes after its barrier was refused: the consumer commits the
    /// revoked partitions and then reports the revoke, both on its poll thread, so the commit
    /// reported last before a revoke is the revoke's own.
    final class RevokeCommits: Sendable {
        private let state = Mutex<(lastFailed: Bool, refusedAtRevoke: Bool)>((false, false))

        var observer: KafkaConsumerObserver {
            KafkaConsumerObserver(
                rebalanced: { assigned, _ in
                    guard !assigned else { return }
                    self.state.withLock { $0.refusedAtRevoke = $0.refusedAtRevoke || $0.lastFailed }
                },
                committed: { _, succeeded in self.state.withLock { $0.lastFailed = !succeeded } })
        }

        var refusedAtRevoke: Bool { state.withLock { $0.refusedAtRevoke } }
    }

    /// What one run of the scenario saw.
    struct Attempt {
        var topic: String
        var barriers: [[KafkaTopicPartition]]
        var finished: Set<String>
        var redelivered: Set<String>
        var secondAssignment: Set<KafkaTopicPartition>
        /// The broker refused the revoke's commit (REBALANCE_IN_PROGRESS): the embedded cluster
        /// does when a member's SyncGroup races the leader's (it answers INVALID_REQUEST and that
        /// member rejoins) while the old owner is in its revoke; Apache Kafka accepts commits of
        /// the current generation while a rebalance is prepared. Redelivery is then at-least-once
        /// as documented, and the attempt says nothing about the barrier.
        var commitRefused: Bool
    }

    @Test(arguments: Self.cases)
    func workFinishedInTheBarrierIsCommittedBeforeThePartitionsMove(
        backend: KafkaTestBackend, strategy: KafkaAssignmentStrategy
    ) async throws {
        var attempts: [Attempt] = []
        // Up to five runs, only while the broker refused the revoke's commit; every run must
        // show the barrier held, and a run whose commit went through must show no redelivery.
        while attempts.count < 5 {
            let attempt = try await runScenario(backend: backend, strategy: strategy)
            attempts.append(attempt)
            #expect(!attempt.barriers.isEmpty, "the barrier ran before partitions moved")
            #expect(!attempt.finished.isEmpty, "the barrier finished held messages")
            if !attempt.commitRefused { break }
            print("\(backend)/\(strategy): the broker refused the revoke's commit; running the scenario again")
        }
        let attempt = try #require(attempts.last)
        #expect(!attempt.commitRefused, "the broker refused the revoke's commit in \(attempts.count) runs")
        if !attempt.commitRefused {
            #expect(
                attempt.redelivered.isEmpty,
                "messages finished in the barrier reached the new member: \(attempt.redelivered.sorted().prefix(5))")
        }
        let all = Set((0..<4).map { KafkaTopicPartition(topic: attempt.topic, partition: Int32($0)) })
        if strategy == .cooperativeSticky {
            let revoked = Set(attempt.barriers.flatMap { $0 })
            #expect(revoked.count < 4, "cooperative-sticky revokes only what moves: \(revoked)")
            #expect(
                revoked.isSubset(of: attempt.secondAssignment),
                "the revoked partitions are the ones the new member got")
        } else {
            #expect(Set(attempt.barriers.first ?? []) == all, "range (eager) revokes every partition first")
        }
    }

    private func runScenario(backend: KafkaTestBackend, strategy: KafkaAssignmentStrategy) async throws -> Attempt {
        var result: Attempt?
        try await withKafkaTestCluster(backend) { cluster in
            let topic = try await cluster.makeTopic(partitions: 4)
            try await KafkaTestTraffic.produce(cluster, topic: topic, count: 400, partitions: 4)
            var configuration = cluster.consumerConfiguration(group: "\(topic)-g", topics: [topic])
            configuration.assignmentStrategy = strategy
            let inFlight = InFlight()
            let box = ConsumerBox()
            let commits = RevokeCommits()
            let barrier = KafkaRevokeBarrier(limit: .seconds(10)) { partitions, done in
                // The answers come a little later, on another thread, as APNs answers would.
                Task {
                    try? await Task.sleep(for: .milliseconds(300))
                    if let consumer = box.consumer.withLock({ $0 }) { _ = inFlight.finish(partitions, on: consumer) }
                    done()
                }
            }
            let first = try KafkaConsumer(
                configuration: configuration, logger: KafkaTestCluster.logger, observer: commits.observer,
                revokeBarrier: barrier)
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
            let finished = inFlight.finished
            let attempt = Attempt(
                topic: topic, barriers: inFlight.barriers, finished: finished,
                redelivered: Set(received.withLock { $0 }).intersection(finished),
                secondAssignment: second.assignment, commitRefused: commits.refusedAtRevoke)
            firstTask.cancel()
            secondTask.cancel()
            try await second.close()
            try await first.close()
            result = attempt
        }
        return try #require(result)
    }
}
