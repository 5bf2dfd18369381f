import ArgumentParser
import Foundation

/// The one executable. Each subcommand lives in `Commands/` in a file of its own name.
@main
struct SalvoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "salvo",
        abstract: "High-throughput APNs fan-out: Kafka in, HTTP/2 out, feedback back.",
        discussion: """
            Flags mean the same in every command (docs/cli.md); durations are written as in the \
            YAML (500ms, 30s, 2m). Exit status, the same for every command:
            \(CommandExit.helpTable)
            """,
        version: VersionCommand.text,
        subcommands: [
            VersionCommand.self,
            TopicsCommand.self,
            CampaignsCommand.self,
            EnqueueCommand.self,
            SendCommand.self,
            ChannelsCommand.self,
            MockAPNsCommand.self,
            BenchCommand.self,
            DemoCommand.self,
            WorkerCommand.self,
            LoadTestCommand.self,
        ]
    )

    /// ArgumentParser's `main`, with the exit status of ``CommandExit`` for the errors commands
    /// throw (ArgumentParser's own, a usage error among them, keep its statuses).
    static func main() async {
        do {
            var command = try await asyncParseAsRoot(nil)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            guard let status = CommandExit.status(of: error) else { exit(withError: error) }
            let line = CommandExit.message(of: error).map { "Error: \($0)" } ?? fullMessage(for: error, columns: nil)
            FileHandle.standardError.write(Data((line + "\n").utf8))
            exit(withError: status.exitCode)
        }
    }
}
