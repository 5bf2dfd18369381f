import ArgumentParser
import Foundation
import Logging

/// The lines `salvo worker` writes itself rather than through a logger: where its operations
/// listener is, that it started and that it stopped (on stdout, flushed at once, because
/// supervisors and tests read them from the pipe), and the error it exits on (stderr).
///
/// In JSON mode each is a JSON log line like every other line of the process, so a log shipper
/// never meets plain text; in text mode they read as before.
struct WorkerConsole: Sendable {
    var format: LogFormat
    static let label = "salvo.worker"

    /// A line on stdout, flushed at once.
    func announce(_ message: String, metadata: Logger.Metadata = [:]) {
        switch format {
        case .text:
            print(message)
            fflush(nil)  // nil: every stream, so a supervisor reading the pipe sees the line now
        case .json:
            fflush(nil)  // whatever `print` buffered goes first
            JSONLogHandler.write(
                JSONLogHandler.line(
                    level: .info, label: Self.label, message: message, source: "salvo", metadata: metadata),
                to: STDOUT_FILENO)
        }
    }

    /// The error the worker exits on, with its status (``CommandExit``). Text mode leaves the
    /// line to ArgumentParser (`Error: …`); JSON mode writes it as an `error` line on stderr and
    /// exits without ArgumentParser's text.
    func failure(_ message: String, exit status: CommandExit) -> any Error {
        guard format == .json else { return CommandFailure(message, exit: status) }
        JSONLogHandler.write(
            JSONLogHandler.line(level: .error, label: Self.label, message: message, source: "salvo", metadata: [:]),
            to: STDERR_FILENO)
        return status.exitCode
    }
}
