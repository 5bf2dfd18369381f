import SalvoKafka

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The client part of the `kafka:` block — `brokers`, `client_id`, `properties` and
/// `properties_files` — with the `SALVO_KAFKA_*` variables over it. The one code path for every
/// Kafka client Salvo makes: the worker's (``WorkerConfigurationLoader``) and each command's
/// (``KafkaClientConfigurationLoader``), so a file, a variable or a secret file means the same to
/// both.
///
/// Precedence, lowest first: `properties`, `properties_files` (a property named in both is an
/// error), then `SALVO_KAFKA_PROPERTY_<NAME>` (which also drops the file named for that property,
/// so a variable replaces a secret file that is not mounted).
extension WorkerConfigurationFile.Kafka {
    static let propertyVariablePrefix = "SALVO_KAFKA_PROPERTY_"

    /// A block with only `brokers`, for a command given no `--kafka-config`.
    init(brokers: [String]) {
        self.brokers = brokers
        clientID = nil
        properties = [:]
        propertiesFiles = [:]
        consumerProperties = [:]
        producerProperties = [:]
    }

    /// Applies `SALVO_KAFKA_BROKERS` (comma-separated), `SALVO_KAFKA_CLIENT_ID` and every
    /// `SALVO_KAFKA_PROPERTY_<NAME>` (`<NAME>` lower-cased, `_` → `.`); returns the names applied
    /// (never their values, which may be secrets), sorted.
    mutating func applyEnvironment(_ environment: [String: String]) throws(ConfigurationProblem) -> [String] {
        var applied: [String] = []
        if let value = environment["SALVO_KAFKA_BROKERS"] {
            brokers = Self.brokerList(value)
            guard !brokers.isEmpty else {
                throw ConfigurationProblem("environment SALVO_KAFKA_BROKERS", "must list at least one host:port")
            }
            applied.append("SALVO_KAFKA_BROKERS")
        }
        if let value = environment["SALVO_KAFKA_CLIENT_ID"] {
            clientID = value
            applied.append("SALVO_KAFKA_CLIENT_ID")
        }
        for (name, value) in environment.sorted(by: { $0.key < $1.key })
        where name.hasPrefix(Self.propertyVariablePrefix) {
            let property = String(
                name.dropFirst(Self.propertyVariablePrefix.count).lowercased().map { $0 == "_" ? "." : $0 })
            guard !property.isEmpty else {
                throw ConfigurationProblem(
                    "environment \(name)",
                    "name the librdkafka property after the prefix, e.g. SALVO_KAFKA_PROPERTY_SECURITY_PROTOCOL")
            }
            properties[property] = value
            propertiesFiles[property] = nil
            applied.append(name)
        }
        return applied
    }

    /// The settings every client shares, each `properties_files` entry read (its path through
    /// `resolve`, the file's directory for relative ones; a final newline is not part of the
    /// value). `defaultClientID` applies when neither the block nor `SALVO_KAFKA_CLIENT_ID` names one.
    func clientConfiguration(
        resolve: (String) -> String, defaultClientID: String = "salvo"
    ) throws(ConfigurationProblem) -> KafkaClientConfiguration {
        guard !brokers.isEmpty else { throw ConfigurationProblem("kafka.brokers", "list at least one host:port") }
        var resolved = properties
        for (property, path) in propertiesFiles.sorted(by: { $0.key < $1.key }) {
            let key = "kafka.properties_files.\(property)"
            guard properties[property] == nil else {
                throw ConfigurationProblem(key, "kafka.properties sets \(property) too; give it in one place")
            }
            resolved[property] = try Self.secret(at: resolve(path), key: key)
        }
        return KafkaClientConfiguration(brokers: brokers, clientID: clientID ?? defaultClientID, properties: resolved)
    }

    /// `a:9092, b:9092` → `["a:9092", "b:9092"]`.
    static func brokerList(_ text: String) -> [String] {
        text.split(separator: ",").map { String($0.filter { !$0.isWhitespace }) }.filter { !$0.isEmpty }
    }

    /// A secret file's text without its final line break; errors name the key and the file, never
    /// what the file holds.
    private static func secret(at path: String, key: String) throws(ConfigurationProblem) -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationProblem(key, "cannot read \(path)")
        }
        guard var text = String(data: data, encoding: .utf8) else {
            throw ConfigurationProblem(key, "\(path) is not UTF-8 text")
        }
        while text.last?.isNewline == true { text.removeLast() }
        guard !text.isEmpty else { throw ConfigurationProblem(key, "\(path) is empty") }
        return String(text)
    }
}
