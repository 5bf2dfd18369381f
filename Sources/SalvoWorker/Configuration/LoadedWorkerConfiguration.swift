import Logging

/// What ``WorkerConfigurationLoader`` returns: the validated configuration plus the settings that
/// belong to the process rather than the worker (log level and format), and where they came from.
public struct LoadedWorkerConfiguration: Sendable, CustomStringConvertible {
    public var configuration: WorkerConfiguration
    /// `log_level` (or `SALVO_LOG_LEVEL`). Default: info.
    public var logLevel: Logger.Level
    /// `log_format` (or `SALVO_LOG_FORMAT`). Default: text.
    public var logFormat: WorkerLogFormat
    /// The file (or the name given for YAML text), for the start-up log.
    public var source: String
    /// Names of the `SALVO_*` variables that overrode the file, never their values.
    public var environmentOverrides: [String]
    /// What is allowed but unwise, one line each naming the YAML key (a private-key file readable
    /// by other users): `--check-config` prints them, the worker logs them at start.
    public var warnings: [String]

    public init(
        configuration: WorkerConfiguration, logLevel: Logger.Level, logFormat: WorkerLogFormat = .text, source: String,
        environmentOverrides: [String], warnings: [String] = []
    ) {
        self.configuration = configuration
        self.logLevel = logLevel
        self.logFormat = logFormat
        self.source = source
        self.environmentOverrides = environmentOverrides
        self.warnings = warnings
    }

    /// The source line of every effective setting: each key a variable set names its variable
    /// (`operations.listen from SALVO_OPERATIONS_LISTEN`); every other key is the file's or its
    /// default. The values are in the configuration's own description, secrets redacted.
    public var description: String {
        let overrides =
            environmentOverrides.isEmpty
            ? "none" : environmentOverrides.map { "\(Self.key(overriddenBy: $0)) from \($0)" }.joined(separator: ", ")
        return
            "\(source) (log level \(logLevel), log format \(logFormat.rawValue), environment overrides: \(overrides); "
            + "every other setting from the file or its default): \(configuration)"
    }

    /// The YAML key an environment variable of ``WorkerEnvironmentOverrides`` sets.
    static func key(overriddenBy variable: String) -> String {
        let prefix = "SALVO_KAFKA_PROPERTY_"
        if variable.hasPrefix(prefix) {
            return "kafka.properties."
                + String(variable.dropFirst(prefix.count)).lowercased().map { $0 == "_" ? "." : $0 }
        }
        let keys = [
            "SALVO_KAFKA_BROKERS": "kafka.brokers", "SALVO_KAFKA_CLIENT_ID": "kafka.client_id",
            "SALVO_GROUP_ID": "group_id", "SALVO_OPERATIONS_LISTEN": "operations.listen",
            "SALVO_DRAIN_DEADLINE": "drain_deadline", "SALVO_LOG_LEVEL": "log_level",
            WorkerLogFormat.environmentVariable: "log_format",
        ]
        return keys[variable] ?? variable
    }
}
