import ArgumentParser

/// Topic administration for Salvo's Kafka contracts.
struct TopicsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "topics",
        abstract: "Create and check Salvo's Kafka topics.",
        subcommands: [TopicsCreateCommand.self, TopicsCheckCommand.self]
    )
}
