import ArgumentParser

/// The one executable. Each subcommand lives in `Commands/` in a file of its own name.
@main
struct SalvoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "salvo",
        abstract: "High-throughput APNs fan-out: Kafka in, HTTP/2 out, feedback back.",
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
}
