import ArgumentParser
import SalvoWorker

/// `salvo campaign pause ID`: hold a campaign until `resume`.
struct CampaignPauseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pause",
        abstract: "Pause a campaign: nothing of it is sent until it is resumed; other traffic goes on."
    )

    @OptionGroup var options: CampaignActionOptions

    func run() async throws {
        try await options.give(.pause)
    }
}
