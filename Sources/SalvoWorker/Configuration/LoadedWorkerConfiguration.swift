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

    public var description: String {
        let overrides = environmentOverrides.isEmpty ? "none" : environmentOverrides.joined(separator: ", ")
        return
            "\(source) (log level \(logLevel), log format \(logFormat.rawValue), environment overrides: \(overrides)): \(configuration)"
    }
}
