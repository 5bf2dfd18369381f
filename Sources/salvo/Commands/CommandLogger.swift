import Logging

/// Loggers of the Kafka commands: stderr only (stdout carries results), quiet unless `--verbose`,
/// because librdkafka repeats every connection failure that the command reports once, clearly.
enum CommandLogger {
    static func make(label: String, verbose: Bool) -> Logger {
        var logger = Logger(label: label) { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = verbose ? .info : .critical
        return logger
    }
}
