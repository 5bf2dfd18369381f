import ArgumentParser
import Logging
import SalvoWorker

/// How `salvo worker` writes its log: `text` for people, `json` (one object per line) for log
/// shippers. Chosen by `--log-format`, else `SALVO_LOG_FORMAT`, else the file's `log_format`,
/// else text.
enum LogFormat: String, ExpressibleByArgument, CaseIterable, Sendable {
    case text
    case json

    init(_ format: WorkerLogFormat) {
        switch format {
        case .text: self = .text
        case .json: self = .json
        }
    }

    /// What `SALVO_LOG_FORMAT` asks for, when it names a format: known before the configuration
    /// file is read, so even a file that fails to load is reported in the right format.
    static func fromEnvironment(_ environment: [String: String]) -> LogFormat? {
        environment[WorkerLogFormat.environmentVariable].flatMap { LogFormat(rawValue: $0.lowercased()) }
    }

    /// Sends every logger of the process to this format (once per process).
    func bootstrap() {
        let format = self
        LoggingSystem.bootstrap { label in
            switch format {
            case .text: return StreamLogHandler.standardError(label: label)
            case .json: return JSONLogHandler(label: label)
            }
        }
    }
}
