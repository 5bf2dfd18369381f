import Logging

/// What ``WorkerConfigurationLoader`` returns: the validated configuration plus the settings that
/// belong to the process rather than the worker (log level), and where they came from.
public struct LoadedWorkerConfiguration: Sendable, CustomStringConvertible {
    public var configuration: WorkerConfiguration
    /// `log_level` (or `SALVO_LOG_LEVEL`). Default: info.
    public var logLevel: Logger.Level
    /// The file (or the name given for YAML text), for the start-up log.
    public var source: String
    /// Names of the `SALVO_*` variables that overrode the file, never their values.
    public var environmentOverrides: [String]

    public init(configuration: WorkerConfiguration, logLevel: Logger.Level, source: String, environmentOverrides: [String]) {
        self.configuration = configuration
        self.logLevel = logLevel
        self.source = source
        self.environmentOverrides = environmentOverrides
    }

    public var description: String {
        let overrides = environmentOverrides.isEmpty ? "none" : environmentOverrides.joined(separator: ", ")
        return "\(source) (log level \(logLevel), environment overrides: \(overrides)): \(configuration)"
    }
}
