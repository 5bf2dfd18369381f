import ArgumentParser

/// `salvo bench …`: benchmarks that print one summary line (CPU-seconds per 100k operations
/// against a C reference measured in the same run) for `docs/benchmarks.md`.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Benchmarks (release builds only give meaningful numbers).",
        subcommands: [
            BenchAPNsCommand.self,
        ]
    )
}
