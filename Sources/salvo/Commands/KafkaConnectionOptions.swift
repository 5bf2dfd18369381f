import ArgumentParser
import Foundation
import SalvoKafka
import SalvoWorker

/// How every command that talks to Kafka finds and authenticates to the cluster: `--kafka-config
/// FILE` (the `kafka:` block of a YAML file, a worker's configuration file included), the worker's
/// `SALVO_KAFKA_*` variables over it, and `--brokers` over both. The same flags, help and
/// precedence in every command (docs/cli.md).
struct KafkaConnectionOptions: ParsableArguments {
    @Option(
        name: .customLong("kafka-config"),
        help: ArgumentHelp(
            "YAML file whose kafka: block (brokers, client_id, properties, properties_files) configures the client; a worker's configuration file will do. SALVO_KAFKA_* variables override it.",
            valueName: "file"))
    var kafkaConfig: String?

    @Option(
        help: ArgumentHelp(
            "Bootstrap brokers, host:port[,host:port...]; wins over --kafka-config and SALVO_KAFKA_BROKERS.",
            valueName: "brokers"))
    var brokers: String?

    /// Whether either flag was given (the demo runs on its embedded cluster otherwise).
    var isGiven: Bool { kafkaConfig != nil || brokers != nil }

    /// The settings, or a one-line failure naming the file and key (exit 78).
    func loaded(
        clientID: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(CommandFailure) -> LoadedKafkaClientConfiguration {
        do {
            return try KafkaClientConfigurationLoader(environment: environment).load(
                path: kafkaConfig, brokers: brokers, defaultClientID: clientID)
        } catch {
            throw CommandFailure(error.message, exit: .configuration)
        }
    }

    /// The client settings; with `verbose`, what they are (secrets redacted) goes to stderr.
    func client(clientID: String, verbose: Bool = false) throws(CommandFailure) -> KafkaClientConfiguration {
        let loaded = try loaded(clientID: clientID)
        if verbose { FileHandle.standardError.write(Data("kafka: \(loaded)\n".utf8)) }
        return loaded.client
    }
}

extension KafkaClientConfiguration {
    /// `a:9092,b:9092`, for messages.
    var brokerList: String { brokers.joined(separator: ",") }
}
