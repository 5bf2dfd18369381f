import SalvoKafka

/// What ``KafkaClientConfigurationLoader`` returns: the client settings and where they came from,
/// printable without leaking a secret.
public struct LoadedKafkaClientConfiguration: Sendable, CustomStringConvertible {
    public var client: KafkaClientConfiguration
    /// The `--kafka-config` file, or `--brokers` when no file was given.
    public var source: String
    /// Names of the `SALVO_KAFKA_*` variables applied, never their values.
    public var environmentOverrides: [String]
    /// Whether `--brokers` named the brokers (over the file and `SALVO_KAFKA_BROKERS`).
    public var brokersFlag: Bool

    public init(
        client: KafkaClientConfiguration, source: String, environmentOverrides: [String], brokersFlag: Bool
    ) {
        self.client = client
        self.source = source
        self.environmentOverrides = environmentOverrides
        self.brokersFlag = brokersFlag
    }

    /// `brokers a:9092 (--brokers), client id x, properties [security.protocol=sasl_ssl,
    /// sasl.password=<redacted>], from kafka.yaml, environment overrides: SALVO_KAFKA_…`: every
    /// property value through ``KafkaPropertyRedaction``, as in the worker's own summary.
    public var description: String {
        let properties = WorkerConfiguration.redacted(client.properties)
        let overrides = environmentOverrides.isEmpty ? "none" : environmentOverrides.joined(separator: ", ")
        return "brokers \(client.brokers.joined(separator: ","))\(brokersFlag ? " (--brokers)" : ""), "
            + "client id \(client.clientID), properties [\(properties.joined(separator: ", "))], "
            + "from \(source), environment overrides: \(overrides)"
    }
}
