import Foundation
import SalvoKafka
import SalvoTestSupport
import Testing

/// librdkafka's real SASL and TLS client code against the test support's SASL front end, with
/// a Tansu of its own behind it (``AuthenticatingTestBroker``): every connection — bootstrap,
/// the advertised broker, the group coordinator — authenticates.
@Suite struct KafkaSASLFrontEndTests {
    static let users = ["alice": "alice-secret", "bob": "bob-secret"]

    /// The front end's client properties for alice (or `user`/`password`).
    static func properties(
        _ broker: AuthenticatingTestBroker, _ mechanism: KafkaSASLMechanism?, user: String = "alice",
        password: String = "alice-secret", caPath: String? = nil
    ) -> [String: String] {
        broker.frontEnd.clientProperties(mechanism: mechanism, user: user, password: password, caLocation: caPath)
    }

    static func withBroker(
        mechanisms: [KafkaSASLMechanism] = KafkaSASLMechanism.allCases, tls: KafkaSASLFrontEnd.TLS? = nil,
        _ body: (AuthenticatingTestBroker) async throws -> Void
    ) async throws {
        let broker = try await AuthenticatingTestBroker.start(mechanisms: mechanisms, users: users, tls: tls)
        try await withCleanUp(broker, cleanUp: { await $0.stop() }, body)
    }

    static func withPKI(_ body: (TestPKI) async throws -> Void) async throws {
        try await withCleanUp(try TestPKI(), cleanUp: { $0.remove() }, body)
    }

    /// Lists and creates a topic, produces one message and consumes it, all through `broker`.
    static func roundTrip(_ broker: AuthenticatingTestBroker, properties: [String: String]) async throws {
        let client = KafkaClientConfiguration(
            brokers: [broker.address], clientID: "salvo-sasl-test", properties: properties)
        let topic = "salvo-sasl-\(UInt32.random(in: 0...UInt32.max))"
        let admin = try KafkaAdmin(configuration: client, logger: KafkaTestCluster.logger)
        try await withCleanUp(admin, cleanUp: { await $0.close() }) { admin in
            // Results first: a `try` inside `#expect` leaves the closure's throwing unknown.
            let created = try await admin.createTopics([KafkaNewTopic(name: topic, partitions: 1)])
            let topics = try await admin.topics()
            #expect(created == [KafkaTopicCreationResult(name: topic, outcome: .created)])
            #expect(topics.contains(KafkaTopicMetadata(name: topic, partitionCount: 1)))
        }

        let producer = try KafkaProducer(
            configuration: KafkaProducerConfiguration(client: client), logger: KafkaTestCluster.logger)
        try await withCleanUp(producer, cleanUp: { await $0.shutdown() }) { producer in
            let report = try await producer.send(
                KafkaProducerMessage(
                    topic: topic, partition: 0, key: Array("key".utf8), value: Array("through SASL".utf8)))
            #expect(report.offset == 0)
        }

        var consumerConfiguration = KafkaConsumerConfiguration(client: client, groupID: "\(topic)-g", topics: [topic])
        consumerConfiguration.sessionTimeout = .seconds(6)
        consumerConfiguration.heartbeatInterval = .milliseconds(500)
        consumerConfiguration.closeTimeout = .seconds(10)
        let consumer = try KafkaConsumer(configuration: consumerConfiguration, logger: KafkaTestCluster.logger)
        let messages = try await KafkaTestTraffic.collect(from: consumer, timeout: .seconds(30)) { !$0.isEmpty }
        try await consumer.close()
        #expect(messages.map { String(decoding: $0.value, as: UTF8.self) } == ["through SASL"])
    }

    /// What a client without working credentials gets: the admin's metadata call fails.
    static func metadataError(_ broker: AuthenticatingTestBroker, properties: [String: String]) async -> KafkaError? {
        let client = KafkaClientConfiguration(
            brokers: [broker.address], clientID: "salvo-sasl-test", properties: properties)
        guard let admin = try? KafkaAdmin(configuration: client, logger: KafkaTestCluster.logger) else {
            Issue.record("the admin client could not be created")
            return nil
        }
        let error = await #expect(throws: KafkaError.self) { try await admin.topics(timeout: .seconds(5)) }
        await admin.close()
        print(
            "librdkafka's error through the front end: \(error.map { "\($0) (code \($0.code), retriable \($0.isRetriable))" } ?? "none")"
        )
        return error
    }

    @Test(arguments: KafkaSASLMechanism.allCases)
    func rightCredentialsListCreateProduceAndConsume(mechanism: KafkaSASLMechanism) async throws {
        try await Self.withBroker { broker in
            try await Self.roundTrip(broker, properties: Self.properties(broker, mechanism))
            let statistics = broker.frontEnd.statistics
            #expect(Array(statistics.authenticated.keys) == [mechanism], "\(statistics)")
            #expect(statistics.authenticatedConnections >= 3, "admin, producer and consumer: \(statistics)")
            #expect(Set(statistics.users) == ["alice"])
            #expect(statistics.authenticationFailures == 0 && statistics.refusedRequests == 0, "\(statistics)")
        }
    }

    @Test(arguments: KafkaSASLMechanism.allCases)
    func wrongPasswordFailsAndIsCountedAtTheFrontEnd(mechanism: KafkaSASLMechanism) async throws {
        try await Self.withBroker { broker in
            let error = await Self.metadataError(
                broker, properties: Self.properties(broker, mechanism, password: "wrong"))
            let statistics = broker.frontEnd.statistics
            #expect(statistics.authenticationFailures >= 1, "\(statistics)")
            #expect(statistics.authenticatedConnections == 0, "\(statistics)")
            let reason =
                mechanism == .plain
                ? "PLAIN: wrong user or password for alice" : "\(mechanism): wrong proof for user alice"
            #expect(statistics.failureReasons.first == reason, "\(statistics.failureReasons)")
            #expect(error?.message.contains("Authentication failed") == true, "\(String(describing: error))")
            #expect(error?.message.contains(broker.address) == true, "names the broker: \(String(describing: error))")
            #expect(error?.message.contains("wrong") == false, "no password in: \(String(describing: error))")
        }
    }

    @Test func unknownUserFails() async throws {
        try await Self.withBroker(mechanisms: [.scramSHA256]) { broker in
            let error = await Self.metadataError(
                broker, properties: Self.properties(broker, .scramSHA256, user: "mallory"))
            #expect(broker.frontEnd.statistics.authenticationFailures >= 1, "\(broker.frontEnd.statistics)")
            #expect(error?.message.contains("Authentication failed") == true, "\(String(describing: error))")
        }
    }

    @Test func unsupportedMechanismFails() async throws {
        try await Self.withBroker(mechanisms: [.scramSHA512]) { broker in
            let error = await Self.metadataError(broker, properties: Self.properties(broker, .scramSHA256))
            let statistics = broker.frontEnd.statistics
            #expect(statistics.unsupportedMechanisms >= 1, "\(statistics)")
            #expect(statistics.authenticatedConnections == 0, "\(statistics)")
            #expect(error?.message.contains("SCRAM-SHA-256") == true, "\(String(describing: error))")
        }
    }

    @Test func clientWithoutSASLIsRefusedBeforeItsFirstRequest() async throws {
        try await Self.withBroker { broker in
            _ = await Self.metadataError(broker, properties: Self.properties(broker, nil))
            let statistics = broker.frontEnd.statistics
            #expect(statistics.refusedRequests >= 1, "\(statistics)")
            #expect(statistics.authenticatedConnections == 0, "\(statistics)")
        }
    }

    @Test(arguments: [KafkaSASLMechanism.scramSHA512, .plain])
    func saslOverTLSWorksWithTheTestCA(mechanism: KafkaSASLMechanism) async throws {
        try await Self.withPKI { pki in
            try await Self.withBroker(tls: KafkaSASLFrontEnd.TLS(pki: pki)) { broker in
                try await Self.roundTrip(
                    broker, properties: Self.properties(broker, mechanism, caPath: pki.caCertificatePath))
                #expect(broker.frontEnd.statistics.authenticated[mechanism] ?? 0 >= 3, "\(broker.frontEnd.statistics)")
            }
        }
    }

    @Test func saslOverTLSFailsWithoutTrustingTheCA() async throws {
        try await Self.withPKI { pki in
            try await Self.withBroker(tls: KafkaSASLFrontEnd.TLS(pki: pki)) { broker in
                let error = await Self.metadataError(broker, properties: Self.properties(broker, .scramSHA256))
                #expect(broker.frontEnd.statistics.connections >= 1, "\(broker.frontEnd.statistics)")
                #expect(broker.frontEnd.statistics.authenticatedConnections == 0, "\(broker.frontEnd.statistics)")
                #expect(error?.message.contains("certificate verify failed") == true, "\(String(describing: error))")
                #expect(broker.frontEnd.statistics.tlsFailures >= 1, "\(broker.frontEnd.statistics)")
            }
        }
    }

    @Test func tlsWithoutSASLRelaysFromTheFirstByte() async throws {
        try await Self.withPKI { pki in
            try await Self.withBroker(mechanisms: [], tls: KafkaSASLFrontEnd.TLS(pki: pki)) { broker in
                try await Self.roundTrip(
                    broker, properties: Self.properties(broker, nil, caPath: pki.caCertificatePath))
                #expect(broker.frontEnd.statistics.connections >= 3, "\(broker.frontEnd.statistics)")
            }
        }
    }

    /// Enough traffic that reads and writes come in bursts larger than one socket buffer, both
    /// ways: every record arrives once and intact.
    @Test func manyRecordsPassThroughSCRAMOverTLSIntact() async throws {
        try await Self.withPKI { pki in
            try await Self.withBroker(tls: KafkaSASLFrontEnd.TLS(pki: pki)) { broker in
                let properties = Self.properties(broker, .scramSHA512, caPath: pki.caCertificatePath)
                let client = KafkaClientConfiguration(
                    brokers: [broker.address], clientID: "salvo-sasl-test", properties: properties)
                let topic = "salvo-sasl-bulk-\(UInt32.random(in: 0...UInt32.max))"
                let count = 5_000
                let padding = String(repeating: "x", count: 1_000)
                let producer = try KafkaProducer(
                    configuration: KafkaProducerConfiguration(client: client), logger: KafkaTestCluster.logger)
                try await withCleanUp(producer, cleanUp: { await $0.shutdown() }) { producer in
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for index in 0..<count {
                            let message = KafkaProducerMessage(
                                topic: topic, partition: nil, key: nil, value: Array("\(index) \(padding)".utf8))
                            group.addTask { _ = try await producer.send(message) }
                        }
                        try await group.waitForAll()
                    }
                }
                var configuration = KafkaConsumerConfiguration(client: client, groupID: "\(topic)-g", topics: [topic])
                configuration.sessionTimeout = .seconds(6)
                configuration.heartbeatInterval = .milliseconds(500)
                configuration.closeTimeout = .seconds(10)
                let consumer = try KafkaConsumer(configuration: configuration, logger: KafkaTestCluster.logger)
                let messages = try await KafkaTestTraffic.collect(from: consumer, timeout: .seconds(60)) {
                    $0.count >= count
                }
                try await consumer.close()
                let values = messages.map { String(decoding: $0.value, as: UTF8.self) }
                #expect(values.count == count)
                #expect(Set(values) == Set((0..<count).map { "\($0) \(padding)" }))
            }
        }
    }
}
