import ArgumentParser
import SalvoWorker

/// `salvo campaign cancel ID`: stop a campaign for good.
struct CampaignCancelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract: "Cancel a campaign: what is not sent yet is dropped (outcome cancelled), later jobs send nothing."
    )

    @OptionGroup var options: CampaignActionOptions

    func run() async throws {
        try await options.give(.cancel)
    }
}
