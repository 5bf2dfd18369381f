import CRdKafka
import Logging
import SalvoPrimitives
import Testing

@testable import SalvoKafka

@Suite struct KafkaConfigurationTests {
    let client = KafkaClientConfiguration(bootstrapServers: " a:9092, b:9093 ,")

    @Test func bootstrapListIsParsed() {
        #expect(client.brokers == ["a:9092", "b:9093"])
    }

    @Test func consumerPropertiesTurnOffAutomaticOffsetsAndBoundPrefetch() {
        let configuration = KafkaConsumerConfiguration(client: client, groupID: "g", topics: ["t"])
        let properties = RDKafkaConfig.consumerProperties(configuration, logLevel: .info)
        #expect(properties["bootstrap.servers"] == "a:9092,b:9093")
        #expect(properties["enable.auto.commit"] == "false")
        #expect(properties["enable.auto.offset.store"] == "false")
        #expect(properties["partition.assignment.strategy"] == "range")
        #expect(properties["queued.max.messages.kbytes"] == "8192")
        #expect(properties["fetch.max.bytes"] == String(8192 * 1024))
        #expect(properties["log.queue"] == "true")
        #expect(properties["session.timeout.ms"] == "45000")
        #expect(properties["fetch.queue.backoff.ms"] == "10")
    }

    @Test func propertiesNewerThanTheLoadedLibraryAreSkippedNotFatal() throws {
        // Like fetch.queue.backoff.ms on librdkafka 2.0.2: unknown, but declared optional.
        let properties = ["client.id": "x", "future.property": "1"]
        let conf = try RDKafkaConfig.makeConf(properties, events: 0, skippingIfUnknown: ["future.property"])
        rd_kafka_conf_destroy(conf)
        #expect(throws: KafkaError.self) {
            let conf = try RDKafkaConfig.makeConf(properties, events: 0, skippingIfUnknown: [])
            rd_kafka_conf_destroy(conf)
        }
        #expect(RDKafkaConfig.versionDependentProperties.contains("fetch.queue.backoff.ms"))
    }

    @Test func producerIsIdempotentWithAcksAllByDefault() {
        let properties = RDKafkaConfig.producerProperties(KafkaProducerConfiguration(client: client), logLevel: .info)
        #expect(properties["enable.idempotence"] == "true")
        #expect(properties["acks"] == "all")
        #expect(properties["linger.ms"] == "5")
        #expect(properties["compression.codec"] == "none")
    }

    @Test func rawPropertiesWinOverTypedOnes() {
        var configuration = KafkaProducerConfiguration(client: client)
        configuration.client.properties = ["linger.ms": "50", "security.protocol": "ssl"]
        let properties = RDKafkaConfig.producerProperties(configuration, logLevel: .info)
        #expect(properties["linger.ms"] == "50")
        #expect(properties["security.protocol"] == "ssl")
    }

    /// Properties of one client kind are applied after the shared ones and never reach the other
    /// kind (librdkafka warns about every property a client ignores).
    @Test func kindPropertiesApplyToTheirKindOnly() {
        var shared = client
        shared.properties = ["security.protocol": "ssl", "linger.ms": "7"]
        var consumer = KafkaConsumerConfiguration(client: shared, groupID: "g", topics: ["t"])
        consumer.properties = ["session.timeout.ms": "6000"]
        var producer = KafkaProducerConfiguration(client: shared)
        producer.properties = ["linger.ms": "50"]
        let consumerProperties = RDKafkaConfig.consumerProperties(consumer, logLevel: .info)
        let producerProperties = RDKafkaConfig.producerProperties(producer, logLevel: .info)
        #expect(consumerProperties["session.timeout.ms"] == "6000")
        #expect(consumerProperties["security.protocol"] == "ssl")
        #expect(producerProperties["session.timeout.ms"] == nil)
        #expect(producerProperties["linger.ms"] == "50")
        #expect(producerProperties["security.protocol"] == "ssl")
    }

    @Test func validationRejectsNonsense() {
        var consumer = KafkaConsumerConfiguration(client: client, groupID: "g", topics: ["t"])
        consumer.heartbeatInterval = .seconds(60)
        #expect(throws: KafkaError.self) { try consumer.validate() }
        consumer = KafkaConsumerConfiguration(client: client, groupID: "", topics: ["t"])
        #expect(throws: KafkaError.self) { try consumer.validate() }
        var producer = KafkaProducerConfiguration(client: KafkaClientConfiguration(brokers: []))
        #expect(throws: KafkaError.self) { try producer.validate() }
        producer = KafkaProducerConfiguration(client: client)
        producer.queueMaxMessages = 0
        let error = #expect(throws: KafkaError.self) { try producer.validate() }
        #expect(error?.code == .configuration)
    }

    @Test func librdkafkaRejectionCarriesItsOwnTextAndHidesSecrets() {
        var configuration = KafkaProducerConfiguration(client: client)
        configuration.client.properties = ["no.such.property": "1"]
        let error = #expect(throws: KafkaError.self) { try KafkaProducer(configuration: configuration) }
        #expect(error?.code == .configuration)
        #expect(error?.message.contains("No such configuration property") == true, "\(String(describing: error))")

        configuration.client.properties = ["sasl.password": "hunter2", "security.protocol": "bogus"]
        let secretError = #expect(throws: KafkaError.self) { try KafkaProducer(configuration: configuration) }
        #expect(secretError?.message.contains("hunter2") == false)
    }

    @Test func durationsBecomeWholeMilliseconds() {
        #expect(Duration.milliseconds(5).wholeMilliseconds == 5)
        #expect(Duration.microseconds(1).wholeMilliseconds == 1, "rounded up, never 0")
        #expect(Duration.seconds(-1).timeoutMilliseconds == 0)
        #expect(Duration.seconds(Int64.max / 2).timeoutMilliseconds == Int32.max)
    }
}
