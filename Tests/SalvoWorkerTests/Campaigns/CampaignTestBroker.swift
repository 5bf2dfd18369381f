import Foundation
import Logging
import SalvoKafka
import SalvoTestSupport
import SalvoWorker
import Synchronization
import Testing

/// The real test broker (scripts/with-broker.sh) for the campaign tests: compacted topics with
/// unique names, deleted on every exit path by ``withCampaignBroker(_:)``. Missing configuration
/// fails the test rather than skipping it.
final class CampaignTestBroker: Sendable {
    let brokers: [String]
    let admin: KafkaAdmin
    let producer: KafkaProducer
    private let created = CampaignTestBox<[String]>([])

    init() throws {
        guard let configured = ProcessInfo.processInfo.environment["SALVO_TEST_BROKERS"], !configured.isEmpty else {
            throw TestFailure("SALVO_TEST_BROKERS is not set: run through scripts/with-broker.sh")
        }
        brokers = configured.split(separator: ",").map(String.init)
        admin = try KafkaAdmin(configuration: KafkaClientConfiguration(brokers: brokers), logger: EngineKafka.logger)
        producer = try KafkaProducer(
            configuration: KafkaProducerConfiguration(client: KafkaClientConfiguration(brokers: brokers)),
            logger: EngineKafka.logger)
    }

    /// Quick idle fetches, as the worker's follower is configured.
    var client: KafkaClientConfiguration {
        KafkaClientConfiguration(brokers: brokers, clientID: "salvo-campaign-test")
    }

    /// A new compacted topic, as `salvo topics create` makes salvo.control and salvo.campaigns.
    func compactedTopic(_ prefix: String, partitions: Int = 4) async throws -> String {
        let name = "\(prefix)-\(String(UInt32.random(in: 0...UInt32.max), radix: 36))"
        created.mutate { $0.append(name) }
        let results = try await admin.createTopics([
            KafkaNewTopic(name: name, partitions: partitions, configs: ["cleanup.policy": "compact"])
        ])
        guard case .created = results.first?.outcome else { throw TestFailure("cannot create \(name): \(results)") }
        return name
    }

    func send(_ command: CampaignCommand, to topic: String) async throws {
        _ = try await producer.send(KafkaProducerMessage(topic: topic, key: command.key, value: command.encodedValue()))
    }

    func cleanUp() async {
        try? await admin.deleteTopics(created.value)
        await producer.shutdown()
        await admin.close()
    }
}

func withCampaignBroker(_ body: (CampaignTestBroker) async throws -> Void) async throws {
    try await withCleanUp(try CampaignTestBroker(), cleanUp: { await $0.cleanUp() }, body)
}

/// A value shared between a test and callbacks on other threads.
final class CampaignTestBox<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>
    init(_ value: Value) { storage = Mutex(value) }
    var value: Value { storage.withLock { $0 } }
    func mutate<T>(_ body: (inout Value) -> T) -> T { storage.withLock { body(&$0) } }
}
