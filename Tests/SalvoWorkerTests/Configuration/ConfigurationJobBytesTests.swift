import Foundation
import SalvoKafka
import Testing

@testable import SalvoWorker

/// A rejected job is dead-lettered whole, so `limits.max_job_bytes` must leave the dead letter's
/// key and headers room below the producer's `message.max.bytes`, wherever that comes from.
@Suite("Configuration job size and message.max.bytes")
struct ConfigurationJobBytesTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        /// Lines added to `kafka:`.
        var kafka: String = ""
        var top: String = ""
        var environment: [String: String] = [:]
        /// nil: the file loads and its job limit is `accepted`.
        var refusal: String?
        var accepted: Int?
        var testDescription: String { name }

        func yaml(_ fixture: ConfigurationFixture) -> String {
            fixture.minimalYAML(top: top).replacingOccurrences(
                of: "  brokers: [\"localhost:9092\"]", with: "  brokers: [\"localhost:9092\"]\n" + kafka)
        }
    }

    static let cases: [Case] = [
        Case(name: "the default fits librdkafka's default", accepted: 983_616),
        Case(name: "the highest limit for the default", top: "limits: {max_job_bytes: 983616}", accepted: 983_616),
        Case(
            name: "the old default of 16 MiB", top: "limits: {max_job_bytes: 16777216}",
            refusal:
                "limits.max_job_bytes: 16777216 is out of range 1…983616: a dead letter carries the whole job and needs 16384 bytes more within librdkafka's default message.max.bytes 1000000"
        ),
        Case(
            name: "a raised producer limit raises the job limit",
            kafka: "  producer_properties: {message.max.bytes: \"5000000\"}",
            top: "limits: {max_job_bytes: 4983616}", accepted: 4_983_616),
        Case(
            name: "one byte over a raised limit", kafka: "  producer_properties: {message.max.bytes: \"5000000\"}",
            top: "limits: {max_job_bytes: 4983617}",
            refusal:
                "limits.max_job_bytes: 4983617 is out of range 1…4983616: a dead letter carries the whole job and needs 16384 bytes more within kafka.producer_properties.message.max.bytes 5000000"
        ),
        Case(
            name: "producer_properties win over properties",
            kafka:
                "  properties: {message.max.bytes: \"500000\"}\n  producer_properties: {message.max.bytes: \"5000000\"}",
            top: "limits: {max_job_bytes: 4983616}", accepted: 4_983_616),
        Case(
            name: "a lowered limit refuses the default", kafka: "  properties: {message.max.bytes: \"500000\"}",
            refusal:
                "limits.max_job_bytes: 983616 (the default) is out of range 1…483616: a dead letter carries the whole job and needs 16384 bytes more within kafka.properties.message.max.bytes 500000"
        ),
        Case(
            name: "the limit from the environment", top: "limits: {max_job_bytes: 1983616}",
            environment: ["SALVO_KAFKA_PROPERTY_MESSAGE_MAX_BYTES": "2000000"], accepted: 1_983_616),
        Case(
            name: "message.max.bytes not a number", kafka: "  producer_properties: {message.max.bytes: abc}",
            refusal: "kafka.producer_properties.message.max.bytes: \"abc\" is not an integer within 17408…1000000000"),
        Case(
            name: "message.max.bytes beyond librdkafka's",
            kafka: "  producer_properties: {message.max.bytes: \"2000000000\"}",
            refusal: "kafka.producer_properties.message.max.bytes: 2000000000 is out of range 17408…1000000000"),
        Case(
            name: "message.max.bytes leaving no room for a job", kafka: "  properties: {message.max.bytes: \"1000\"}",
            refusal: "kafka.properties.message.max.bytes: 1000 is out of range 17408…1000000000"),
        Case(
            name: "a number past 64 bits", top: "limits: {max_job_bytes: 99999999999999999999}",
            refusal: "limits.max_job_bytes: expected an integer"),
    ]

    @Test("max_job_bytes against message.max.bytes", arguments: cases)
    func jobLimit(_ example: Case) throws {
        let fixture = try ConfigurationFixture()
        defer { fixture.remove() }
        let yaml = example.yaml(fixture)
        if let refusal = example.refusal {
            let message = try ConfigurationBoundsTests.refusal(yaml, environment: example.environment)
            #expect(message == "test.yaml: \(refusal)")
            ConfigurationBoundsTests.expectOneLineWithoutSwiftNames(message)
        } else {
            #expect(
                try ConfigurationBoundsTests.load(yaml, environment: example.environment).maximumJobBytes
                    == example.accepted)
        }
    }

    @Test("a configuration built in code gets the same default")
    func codeDefault() {
        let configuration = WorkerConfiguration(kafka: .init(brokers: ["k:9092"]), apps: [:])
        #expect(
            configuration.maximumJobBytes == ConfigurationBounds.defaultMessageMaxBytes
                - ConfigurationBounds.deadLetterHeadroom)
    }
}
