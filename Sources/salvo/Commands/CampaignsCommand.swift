import ArgumentParser

/// `salvo campaign …`: campaign control and progress (docs/campaigns.md).
struct CampaignsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "campaign",
        abstract: "Cancel, pause or resume a campaign across the fleet, and show its progress.",
        subcommands: [
            CampaignCancelCommand.self, CampaignPauseCommand.self, CampaignResumeCommand.self,
            CampaignStatusCommand.self,
        ]
    )
}
