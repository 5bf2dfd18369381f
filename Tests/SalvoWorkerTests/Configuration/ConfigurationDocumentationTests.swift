import Foundation
import Testing

@testable import SalvoWorker

/// The example file and the reference page mention every key the loader accepts, so neither can
/// fall behind the code.
@Suite("Configuration documentation")
struct ConfigurationDocumentationTests {
    typealias File = WorkerConfigurationFile

    static let keys: [String] = Array(
        Set(
            names(File.CodingKeys.self) + names(File.Kafka.CodingKeys.self) + names(File.Topics.CodingKeys.self)
                + names(File.Lanes.CodingKeys.self) + names(File.Retry.CodingKeys.self)
                + names(File.Backoff.CodingKeys.self)
                + names(File.Outcomes.CodingKeys.self) + names(File.Health.CodingKeys.self)
                + names(File.RateLimitSection.CodingKeys.self)
                + names(File.Limits.CodingKeys.self) + names(File.Operations.CodingKeys.self)
                + names(File.App.CodingKeys.self)
                + names(File.Credential.CodingKeys.self) + names(File.Token.CodingKeys.self)
                + names(File.Certificate.CodingKeys.self) + names(File.CustomEndpoint.CodingKeys.self)
                + names(File.Pool.CodingKeys.self))
    ).sorted()

    private static func names<Keys: CodingKey & CaseIterable>(_ keys: Keys.Type) -> [String] {
        Keys.allCases.map(\.stringValue)
    }

    @Test("config/worker.example.yaml shows every key (set or in a comment)")
    func exampleShowsEveryKey() throws {
        let text = try String(
            contentsOfFile: ConfigurationFixture.repositoryFile("config/worker.example.yaml"), encoding: .utf8)
        #expect(Self.keys.count > 50)
        for key in Self.keys {
            #expect(text.contains("\(key):"), "config/worker.example.yaml does not mention \(key)")
        }
    }

    @Test("docs/configuration.md documents every key and every environment override")
    func referenceDocumentsEveryKey() throws {
        let text = try String(
            contentsOfFile: ConfigurationFixture.repositoryFile("docs/configuration.md"), encoding: .utf8)
        for key in Self.keys {
            #expect(text.contains(key), "docs/configuration.md does not mention \(key)")
        }
        for variable in [
            "SALVO_KAFKA_BROKERS", "SALVO_KAFKA_CLIENT_ID", "SALVO_KAFKA_PROPERTY_", "SALVO_GROUP_ID",
            "SALVO_OPERATIONS_LISTEN",
            "SALVO_DRAIN_DEADLINE", "SALVO_LOG_LEVEL", "SALVO_LOG_FORMAT",
        ] {
            #expect(text.contains(variable), "docs/configuration.md does not mention \(variable)")
        }
    }
}
