import ArgumentParser

/// Release-build benchmarks that print one summary line each.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure CPU cost per 100k operations (use a release build).",
        subcommands: [BenchKafkaCommand.self]
    )
}
