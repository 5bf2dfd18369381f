import ArgumentParser

/// `salvo bench …`: release-build benchmarks that print one summary line each (CPU-seconds per
/// 100k operations, against a C reference measured in the same run where there is one) for
/// `docs/benchmarks.md`.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure CPU cost per 100k operations (use a release build).",
        subcommands: [
            BenchKafkaCommand.self,
            BenchAPNsCommand.self,
            BenchWorkerCommand.self,
            BenchJobsCommand.self,
            BenchLatencyCommand.self,
        ]
    )
}
