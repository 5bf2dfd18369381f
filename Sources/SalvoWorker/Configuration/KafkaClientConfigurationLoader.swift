import SalvoKafka

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The Kafka client settings of a command (`--kafka-config FILE`, `--brokers`): the `kafka:` block
/// of a YAML file — a worker's own configuration file does, its other sections are not read — then
/// the worker's `SALVO_KAFKA_*` variables, then `--brokers`, through the worker's own code for the
/// block (`WorkerConfigurationFile+KafkaClient.swift`), so one file and one set of variables serve
/// the worker and every command.
///
/// Precedence, lowest first: the file, the environment, `--brokers` (the command line names the
/// cluster for this one run). Errors are one line naming the file and key
/// (`kafka.yaml: kafka.properties_files.sasl.password: cannot read /run/secrets/kafka-password`).
public struct KafkaClientConfigurationLoader: Sendable {
    /// The variables `SALVO_KAFKA_*` are read from. Default: the process's.
    public var environment: [String: String]

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    /// Reads `path` (nil: no file), the environment and `brokers` (comma-separated, nil: not
    /// given). `defaultClientID` names the client when nothing else does.
    public func load(
        path: String?, brokers: String? = nil, defaultClientID: String = "salvo"
    ) throws(SalvoWorkerError) -> LoadedKafkaClientConfiguration {
        let source = path ?? "--brokers"
        do throws(ConfigurationProblem) {
            var block = WorkerConfigurationFile.Kafka(brokers: [])
            var directory = "."
            if let path {
                let (yaml, base) = try ConfigurationYAML.read(path)
                directory = base
                block = try ConfigurationYAML.decode(Document.self, from: yaml).kafka
            }
            let overrides = try block.applyEnvironment(environment)
            if let brokers {
                block.brokers = WorkerConfigurationFile.Kafka.brokerList(brokers)
                guard !block.brokers.isEmpty else {
                    throw ConfigurationProblem("--brokers", "list at least one host:port")
                }
            }
            guard !block.brokers.isEmpty else {
                throw ConfigurationProblem(
                    "",
                    path == nil
                        ? "no brokers: give --kafka-config FILE, --brokers HOST:PORT or SALVO_KAFKA_BROKERS"
                        : "kafka.brokers: list at least one host:port")
            }
            let resolver = WorkerAppBuilder(baseDirectory: directory, environment: environment)
            let client = try block.clientConfiguration(resolve: resolver.resolve, defaultClientID: defaultClientID)
            return LoadedKafkaClientConfiguration(
                client: client, source: source, environmentOverrides: overrides, brokersFlag: brokers != nil)
        } catch {
            throw error.failure(in: path == nil ? "kafka settings" : source)
        }
    }

    /// Only `kafka:` is read (and checked key by key); every other top-level key is left alone.
    private struct Document: Decodable {
        var kafka: WorkerConfigurationFile.Kafka
    }
}
