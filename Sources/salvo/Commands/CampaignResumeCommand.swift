import ArgumentParser
import SalvoWorker

/// `salvo campaign resume ID`: send a paused campaign again.
struct CampaignResumeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume",
        abstract: "Resume a paused campaign."
    )

    @OptionGroup var options: CampaignActionOptions

    func run() async throws {
        try await options.give(.resume)
    }
}
