import SalvoKafka
import Synchronization
import Testing

@Suite struct KafkaProducerTests {
    @Test(arguments: KafkaTestBackend.allCases)
    func keysHeadersAndBytesRoundTrip(backend: KafkaTestBackend) async throws {
        try await withKafkaTestCluster(backend) { cluster in
            let topic = try await cluster.makeTopic(partitions: 1)
            let producer = try KafkaProducer(
                configuration: KafkaProducerConfiguration(client: cluster.clientConfiguration()),
                logger: KafkaTestCluster.logger
            )
            let sent = [
                KafkaProducerMessage(
                    topic: topic,
                    key: Array("ключ".utf8),
                    value: Array("{\"alert\":\"héllo 🎉\"}".utf8),
                    headers: [KafkaHeader(key: "trace", value: "abc"), KafkaHeader(key: "empty", value: nil)]
                ),
                KafkaProducerMessage(topic: topic, value: []),
                KafkaProducerMessage(topic: topic, key: [0, 255, 0], value: [UInt8](repeating: 0xAB, count: 100_000)),
            ]
            var reports: [KafkaDeliveryReport] = []
            for message in sent {
                reports.append(try await producer.send(message))
            }
            await producer.shutdown()
            #expect(reports.map(\.offset) == [0, 1, 2])
            #expect(reports.allSatisfy { $0.topic == topic && $0.partition == 0 })

            let consumer = try KafkaConsumer(
                configuration: cluster.consumerConfiguration(group: "\(topic)-g", topics: [topic]),
                logger: KafkaTestCluster.logger
            )
            let received = try await KafkaTestTraffic.collect(from: consumer, timeout: .seconds(60)) { $0.count >= 3 }
            try await consumer.close()
            #expect(received.map(\.key) == sent.map(\.key))
            #expect(received.map(\.value) == sent.map(\.value))
            #expect(received.map(\.headers) == sent.map(\.headers))
            #expect(received.allSatisfy { $0.timestampMilliseconds != nil })
        }
    }

    /// With `readsKeysAndHeaders` off, messages arrive with their values, topics and offsets only;
    /// topic names are shared per topic, and two topics are still told apart.
    @Test func valuesOnlyConsumerSkipsKeysAndHeaders() async throws {
        try await withKafkaTestCluster(.embedded) { cluster in
            let topics = [try await cluster.makeTopic(partitions: 1), try await cluster.makeTopic(partitions: 1)]
            let producer = try KafkaProducer(
                configuration: KafkaProducerConfiguration(client: cluster.clientConfiguration()),
                logger: KafkaTestCluster.logger)
            for index in 0..<6 {
                let topic = topics[index % 2]
                _ = try await producer.send(
                    KafkaProducerMessage(
                        topic: topic, key: Array("k\(index)".utf8), value: Array("\(topic)/\(index)".utf8),
                        headers: [KafkaHeader(key: "trace", value: "t\(index)")]))
            }
            await producer.shutdown()

            var configuration = cluster.consumerConfiguration(group: "\(topics[0])-values", topics: topics)
            configuration.readsKeysAndHeaders = false
            let consumer = try KafkaConsumer(configuration: configuration, logger: KafkaTestCluster.logger)
            let received = try await KafkaTestTraffic.collect(from: consumer, timeout: .seconds(60)) { $0.count >= 6 }
            try await consumer.close()
            #expect(received.count == 6)
            #expect(received.allSatisfy { $0.key == nil && $0.headers.isEmpty })
            #expect(
                received.allSatisfy { String(decoding: $0.value, as: UTF8.self).hasPrefix($0.topic + "/") },
                "\(received.map(\.topic))")
            #expect(Set(received.map(\.topic)) == Set(topics))
        }
    }

    @Test func fullQueueMakesSendersWaitInsteadOfFailing() async throws {
        try await withKafkaTestCluster(.embedded) { cluster in
            let topic = try await cluster.makeTopic(partitions: 2)
            var configuration = KafkaProducerConfiguration(client: cluster.clientConfiguration())
            configuration.queueMaxMessages = 5
            let producer = try KafkaProducer(configuration: configuration, logger: KafkaTestCluster.logger)
            let delivered = Mutex(0)
            for index in 0..<300 {
                try await producer.enqueue(KafkaProducerMessage(topic: topic, value: KafkaTestTraffic.value(index))) {
                    result in
                    if case .success = result { delivered.withLock { $0 += 1 } }
                }
                #expect(producer.outstandingCount <= 5 + 1)
            }
            try await producer.flush(timeout: .seconds(30))
            #expect(producer.outstandingCount == 0)
            #expect(delivered.withLock { $0 } == 300)
            await producer.shutdown()
        }
    }

    @Test func unknownPartitionFailsTheSend() async throws {
        try await withKafkaTestCluster(.embedded) { cluster in
            let topic = try await cluster.makeTopic(partitions: 1)
            var configuration = KafkaProducerConfiguration(client: cluster.clientConfiguration())
            configuration.deliveryTimeout = .seconds(3)
            let producer = try KafkaProducer(configuration: configuration, logger: KafkaTestCluster.logger)
            _ = try await producer.send(KafkaProducerMessage(topic: topic, value: [1]))
            let error = await #expect(throws: KafkaError.self) {
                try await producer.send(KafkaProducerMessage(topic: topic, partition: 7, value: [1]))
            }
            #expect(error?.code == .unknownTopic)
            await producer.shutdown()
        }
    }

    @Test func shutdownFailsWhatCannotBeDeliveredWithinTheTimeout() async throws {
        let producer = try KafkaProducer(
            configuration: KafkaProducerConfiguration(client: KafkaClientConfiguration(brokers: ["127.0.0.1:1"])),
            logger: KafkaTestCluster.logger
        )
        let failures = Mutex<[KafkaError]>([])
        for index in 0..<10 {
            try await producer.enqueue(KafkaProducerMessage(topic: "nowhere", value: KafkaTestTraffic.value(index))) {
                result in
                if case .failure(let error) = result { failures.withLock { $0.append(error) } }
            }
        }
        let pending = Task { try await producer.send(KafkaProducerMessage(topic: "nowhere", value: [1])) }
        try await Task.sleep(for: .milliseconds(100))
        let start = ContinuousClock.now
        await producer.shutdown(timeout: .milliseconds(300))
        #expect(ContinuousClock.now - start < .seconds(5), "bounded by the timeout plus the purge grace")
        let sendResult = await pending.result
        #expect(throws: KafkaError.self) { try sendResult.get() }
        #expect(failures.withLock { $0.count } == 10, "every enqueued message got its report")
        let refused = await #expect(throws: KafkaError.self) {
            try await producer.send(KafkaProducerMessage(topic: "t", value: []))
        }
        #expect(refused?.code == .shutdown)
    }

    @Test func flushTimesOutWhileTheBrokerIsUnreachable() async throws {
        let producer = try KafkaProducer(
            configuration: KafkaProducerConfiguration(client: KafkaClientConfiguration(brokers: ["127.0.0.1:1"])),
            logger: KafkaTestCluster.logger
        )
        try await producer.enqueue(KafkaProducerMessage(topic: "nowhere", value: [1])) { _ in }
        let error = await #expect(throws: KafkaError.self) { try await producer.flush(timeout: .milliseconds(300)) }
        #expect(error?.code == .timedOut)
        await producer.shutdown(timeout: .zero)
        #expect(producer.outstandingCount == 0)
    }
}
