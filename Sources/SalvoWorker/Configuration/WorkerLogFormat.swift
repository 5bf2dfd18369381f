/// `log_format` (or `SALVO_LOG_FORMAT`): how `salvo worker` writes its log. `salvo worker
/// --log-format` wins over both. Default: text.
public enum WorkerLogFormat: String, CaseIterable, Sendable {
    /// One human-readable line per event.
    case text
    /// One JSON object per line, every line from start to exit, for log shippers.
    case json

    /// The environment variable that overrides the file's `log_format`.
    public static let environmentVariable = "SALVO_LOG_FORMAT"
}
