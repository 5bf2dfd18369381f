import SalvoKafka
import Testing

@Suite struct KafkaAdminTests {
    /// The embedded cluster does not implement CreateTopics, so topic administration is tested
    /// on the real broker only; metadata is tested on both.
    @Test func createListAndDeleteTopicsIsIdempotent() async throws {
        let brokers = try KafkaTestCluster.tansuBrokers()
        print("librdkafka under test: \(RDKafkaLibrary.version)")
        let admin = try KafkaAdmin(
            configuration: KafkaClientConfiguration(brokers: brokers), logger: KafkaTestCluster.logger)
        let name = "salvo-admin-\(UInt32.random(in: 0...UInt32.max))"
        do {
            let created = try await admin.createTopics([
                KafkaNewTopic(name: name, partitions: 3, configs: ["cleanup.policy": "delete"])
            ])
            #expect(created == [KafkaTopicCreationResult(name: name, outcome: .created)])
            let again = try await admin.createTopics([KafkaNewTopic(name: name, partitions: 3)])
            #expect(again == [KafkaTopicCreationResult(name: name, outcome: .alreadyExists)])
            #expect(try await admin.topic(named: name) == KafkaTopicMetadata(name: name, partitionCount: 3))

            try await admin.deleteTopics([name])
            let gone = try await KafkaTestTraffic.eventually(timeout: .seconds(10)) {
                try await admin.topic(named: name) == nil
            }
            #expect(gone)
            try await admin.deleteTopics([name], ignoreMissing: true)
        } catch {
            try? await admin.deleteTopics([name])
            await admin.close()
            throw error
        }
        await admin.close()
    }

    @Test func metadataOfTheEmbeddedCluster() async throws {
        try await withKafkaTestCluster(.embedded) { cluster in
            let topic = try await cluster.makeTopic(partitions: 5)
            let admin = try KafkaAdmin(configuration: cluster.clientConfiguration(), logger: KafkaTestCluster.logger)
            let metadata = try await admin.topic(named: topic)
            let missing = try await admin.topic(named: "\(topic)-missing")
            await admin.close()
            #expect(metadata == KafkaTopicMetadata(name: topic, partitionCount: 5))
            #expect(missing == nil, "asking does not create the topic")
        }
    }

    @Test func unreachableBrokerFailsWithinTheTimeoutAndSaysWhy() async throws {
        // Port 1 on loopback: nothing listens there, so connections are refused at once.
        let admin = try KafkaAdmin(
            configuration: KafkaClientConfiguration(brokers: ["127.0.0.1:1"]), logger: KafkaTestCluster.logger)
        let start = ContinuousClock.now
        let error = await #expect(throws: KafkaError.self) {
            try await admin.topics(timeout: .seconds(2))
        }
        let elapsed = ContinuousClock.now - start
        await admin.close()
        #expect(elapsed < .seconds(10))
        #expect(error?.code == .brokerUnavailable || error?.code == .timedOut)
        #expect(error?.isRetriable == true)
        #expect(
            error?.message.contains("Connection refused") == true, "librdkafka's reason: \(String(describing: error))")
    }

    @Test func closedAdminRefusesRequests() async throws {
        let admin = try KafkaAdmin(
            configuration: KafkaClientConfiguration(brokers: ["127.0.0.1:1"]), logger: KafkaTestCluster.logger)
        await admin.close()
        let error = await #expect(throws: KafkaError.self) { try await admin.topics(timeout: .seconds(1)) }
        #expect(error?.code == .shutdown)
    }
}
