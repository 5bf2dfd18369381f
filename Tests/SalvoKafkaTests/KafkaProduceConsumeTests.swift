import SalvoKafka
import Testing

/// Produce and consume: exactly once, a new member resuming at the committed offsets, commits of the
/// contiguous prefix only, pause and resume, backpressure; on the real broker and the embedded cluster.
@Suite struct KafkaProduceConsumeTests {
    @Test(arguments: KafkaTestBackend.allCases)
    func tenThousandIdempotentMessagesAreConsumedExactlyOnce(backend: KafkaTestBackend) async throws {
        try await withKafkaTestCluster(backend) { cluster in
            let topic = try await cluster.makeTopic(partitions: 4)
            let reports = try await KafkaTestTraffic.produce(cluster, topic: topic, count: 10_000)
            #expect(Set(reports.map { "\($0.partition)/\($0.offset)" }).count == 10_000, "distinct offsets")

            let consumer = try KafkaConsumer(
                configuration: cluster.consumerConfiguration(group: "\(topic)-g", topics: [topic]),
                logger: KafkaTestCluster.logger
            )
            let messages = try await KafkaTestTraffic.collect(from: consumer, timeout: .seconds(60)) {
                $0.count >= 10_000
            }
            try await consumer.close()

            let indices = messages.compactMap(KafkaTestTraffic.index(of:))
            #expect(indices.count == 10_000)
            #expect(Set(indices) == Set(0..<10_000), "exact set")
            #expect(Set(messages.map { "\($0.partition)/\($0.offset)" }).count == messages.count, "no duplicates")
            #expect(messages.allSatisfy { $0.key == Array("key-\(KafkaTestTraffic.index(of: $0) ?? -1)".utf8) })
        }
    }

    @Test(arguments: KafkaTestBackend.allCases)
    func newMemberResumesExactlyAtTheCommittedOffsets(backend: KafkaTestBackend) async throws {
        try await withKafkaTestCluster(backend) { cluster in
            let topic = try await cluster.makeTopic(partitions: 4)
            try await KafkaTestTraffic.produce(cluster, topic: topic, count: 400, partitions: 4)
            let group = "\(topic)-g"
            let processedPerPartition: Int64 = 30

            // The first member processes (marks done) offsets 0..<30 of every partition only.
            let first = try KafkaConsumer(
                configuration: cluster.consumerConfiguration(group: group, topics: [topic]),
                logger: KafkaTestCluster.logger
            )
            let seen = try await KafkaTestTraffic.collect(
                from: first,
                timeout: .seconds(60),
                shouldMarkDone: { $0.offset < processedPerPartition }
            ) { collected in
                collected.filter { $0.offset < processedPerPartition }.count >= 4 * Int(processedPerPartition)
            }
            #expect(seen.filter { $0.offset < processedPerPartition }.count == 4 * Int(processedPerPartition))
            try await first.commitNow()
            let partitions = (0..<4).map { KafkaTopicPartition(topic: topic, partition: Int32($0)) }
            let committed = try await first.committedOffsets(for: partitions)
            #expect(committed == Dictionary(uniqueKeysWithValues: partitions.map { ($0, processedPerPartition) }))
            try await first.close()

            let second = try KafkaConsumer(
                configuration: cluster.consumerConfiguration(group: group, topics: [topic]),
                logger: KafkaTestCluster.logger
            )
            let rest = try await KafkaTestTraffic.collect(from: second, timeout: .seconds(60)) { $0.count >= 400 - 120 }
            try await second.close()
            #expect(rest.count == 280)
            for partition in partitions {
                let offsets = rest.filter { $0.topicPartition == partition }.map(\.offset)
                #expect(offsets.first == processedPerPartition, "\(partition) resumes at the committed offset")
                #expect(offsets == Array(processedPerPartition..<100), "\(partition) in order, nothing skipped")
            }
        }
    }

    @Test(arguments: KafkaTestBackend.allCases)
    func outOfOrderCompletionCommitsOnlyTheContiguousPrefix(backend: KafkaTestBackend) async throws {
        try await withKafkaTestCluster(backend) { cluster in
            let topic = try await cluster.makeTopic(partitions: 1)
            try await KafkaTestTraffic.produce(cluster, topic: topic, count: 6, partitions: 1)
            let group = "\(topic)-g"
            let partition = KafkaTopicPartition(topic: topic, partition: 0)

            let consumer = try KafkaConsumer(
                configuration: cluster.consumerConfiguration(group: group, topics: [topic]),
                logger: KafkaTestCluster.logger
            )
            let messages = try await KafkaTestTraffic.collect(
                from: consumer,
                timeout: .seconds(60),
                shouldMarkDone: { _ in false }
            ) { $0.count >= 6 }
            #expect(messages.map(\.offset) == [0, 1, 2, 3, 4, 5])
            for offset: Int64 in [0, 1, 3, 4] {
                #expect(consumer.markDone(partition, offset: offset) == .marked)
            }
            try await consumer.commitNow()
            let committed = try await consumer.committedOffsets(for: [partition])
            #expect(committed == [partition: 2])
            try await consumer.close()

            let restarted = try KafkaConsumer(
                configuration: cluster.consumerConfiguration(group: group, topics: [topic]),
                logger: KafkaTestCluster.logger
            )
            let redelivered = try await KafkaTestTraffic.collect(from: restarted, timeout: .seconds(60)) {
                $0.count >= 4
            }
            try await restarted.close()
            #expect(redelivered.map(\.offset) == [2, 3, 4, 5], "restart at the unfinished message")
        }
    }

    @Test(arguments: KafkaTestBackend.allCases)
    func pausedPartitionDeliversNothingUntilResumed(backend: KafkaTestBackend) async throws {
        try await withKafkaTestCluster(backend) { cluster in
            let topic = try await cluster.makeTopic(partitions: 2)
            try await KafkaTestTraffic.produce(cluster, topic: topic, count: 400, partitions: 2)
            let paused = KafkaTopicPartition(topic: topic, partition: 0)
            let running = KafkaTopicPartition(topic: topic, partition: 1)

            let consumer = try KafkaConsumer(
                configuration: cluster.consumerConfiguration(group: "\(topic)-g", topics: [topic]),
                logger: KafkaTestCluster.logger
            )
            // One message first: fetching has started, so the buffer likely holds both partitions.
            let before = try await KafkaTestTraffic.collect(from: consumer, timeout: .seconds(60)) { $0.count >= 1 }
            #expect(before.count == 1)
            consumer.pause([paused])

            let whilePaused = try await KafkaTestTraffic.collect(from: consumer, timeout: .seconds(2)) { _ in false }
            let pausedCountBefore = before.filter { $0.topicPartition == paused }.count
            #expect(whilePaused.filter { $0.topicPartition == paused }.isEmpty, "nothing from the paused partition")
            let runningTotal = (before + whilePaused).filter { $0.topicPartition == running }.count
            #expect(runningTotal == 200, "the other partition keeps flowing")

            consumer.resume([paused])
            let remaining = 200 - pausedCountBefore
            let afterResume = try await KafkaTestTraffic.collect(from: consumer, timeout: .seconds(30)) {
                $0.count >= remaining
            }
            try await consumer.close()
            let offsets = (before + afterResume).filter { $0.topicPartition == paused }.map(\.offset)
            #expect(offsets == Array(0..<200), "resumed where it stopped, nothing lost or repeated")
        }
    }

    @Test(arguments: KafkaTestBackend.allCases)
    func tinyBufferAppliesBackpressureWithoutLoss(backend: KafkaTestBackend) async throws {
        try await withKafkaTestCluster(backend) { cluster in
            let topic = try await cluster.makeTopic(partitions: 2)
            try await KafkaTestTraffic.produce(cluster, topic: topic, count: 1_000, partitions: 2)
            var configuration = cluster.consumerConfiguration(group: "\(topic)-g", topics: [topic])
            configuration.bufferCapacity = 8
            let consumer = try KafkaConsumer(configuration: configuration, logger: KafkaTestCluster.logger)
            let messages = try await KafkaTestTraffic.collect(from: consumer, timeout: .seconds(60)) {
                $0.count >= 1_000
            }
            let lag = try await consumer.lag()
            try await consumer.close()
            #expect(messages.count == 1_000)
            for partition in Int32(0)..<2 {
                let offsets = messages.filter { $0.partition == partition }.map(\.offset)
                #expect(offsets == Array(0..<500), "partition \(partition) complete and in order")
            }
            #expect(lag.count == 2)
            for entry in lag {
                #expect(entry.highWatermark == 500)
                #expect(entry.committableOffset == 500)
                #expect(entry.lag == 0)
            }
        }
    }
}
