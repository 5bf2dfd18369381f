/// The `SALVO_*` environment variables that win over the file, so one file serves every
/// deployment and secrets stay out of it:
///
/// | variable | sets |
/// |---|---|
/// | `SALVO_KAFKA_BROKERS` | `kafka.brokers` (comma-separated) |
/// | `SALVO_KAFKA_CLIENT_ID` | `kafka.client_id` |
/// | `SALVO_KAFKA_PROPERTY_<NAME>` | `kafka.properties.<name>`: lower-cased, `_` → `.` (`SALVO_KAFKA_PROPERTY_SASL_PASSWORD` → `sasl.password`) |
/// | `SALVO_GROUP_ID` | `group_id` |
/// | `SALVO_OPERATIONS_LISTEN` | `operations.listen` (`host:port`, or `off`) |
/// | `SALVO_DRAIN_DEADLINE` | `drain_deadline` |
/// | `SALVO_LOG_LEVEL` | `log_level` |
/// | `SALVO_LOG_FORMAT` | `log_format` |
///
/// Certificate passwords come from the variable an app's `password_env` names.
///
/// The `SALVO_KAFKA_*` ones are read by every command's `--kafka-config` too, through the same code
/// (`WorkerConfigurationFile.Kafka.applyEnvironment`).
struct WorkerEnvironmentOverrides: Sendable {
    var environment: [String: String]

    /// Applies every variable that is set; returns their names (never their values, which may be
    /// secrets) for the start-up log.
    func apply(to file: inout WorkerConfigurationFile) throws(ConfigurationProblem) -> [String] {
        var applied: [String] = []
        func take(_ name: String, _ body: (String) throws(ConfigurationProblem) -> Void) throws(ConfigurationProblem) {
            guard let value = environment[name] else { return }
            try body(value)
            applied.append(name)
        }
        applied += try file.kafka.applyEnvironment(environment)
        try take("SALVO_GROUP_ID") { file.groupID = $0 }
        try take("SALVO_OPERATIONS_LISTEN") { value in
            file.operations = WorkerConfigurationFile.Operations(listen: value == "off" ? .disabled : .value(value))
        }
        try take("SALVO_DRAIN_DEADLINE") { (value: String) throws(ConfigurationProblem) in
            file.drainDeadline = try ConfigurationDuration(
                value, within: ConfigurationBounds.drainDeadline, at: "environment SALVO_DRAIN_DEADLINE")
        }
        try take("SALVO_LOG_LEVEL") { file.logLevel = $0 }
        try take(WorkerLogFormat.environmentVariable) { file.logFormat = $0 }
        return applied
    }
}
