import ArgumentParser
import Foundation
import NIOCore
import SalvoWorker

/// Measures the job decoder alone, in this process, on the two shapes the worker benchmark
/// sends: a per-user job (one token) and a campaign job (1,000 tokens). Per-user mode pays the
/// decoder once per notification, so its cost shows up there in full; `bench worker` cannot
/// separate it from Kafka and HTTP/2. Foundation's `JSONSerialization` parses the same bytes in
/// the same run as the reference (it builds values; the decoder only validates and locates).
struct BenchJobsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jobs",
        abstract: "Decode N per-user and campaign jobs; print CPU-s per 100k jobs against JSONSerialization."
    )

    @Option(help: "Per-user jobs (one token each) to decode.")
    var perUserJobs = 1_000_000

    @Option(help: "Campaign jobs (1,000 tokens each) to decode.")
    var campaignJobs = 2_000

    func validate() throws {
        guard perUserJobs >= 1, campaignJobs >= 1 else { throw ValidationError("job counts must be at least 1") }
    }

    func run() throws {
        let decoder = try JobDecoder(configuration: .init(apps: ["bench": AppProfile(bundleID: "com.example.bench")]))
        let perUser = (0..<1_000).map { Self.job(index: $0, tokens: 1) }
        let campaign = (0..<10).map { Self.job(index: $0, tokens: 1_000) }
        for (label, jobs, count) in [
            ("per-user (1 token)", perUser, perUserJobs), ("campaign (1,000 tokens)", campaign, campaignJobs),
        ] {
            let salvo = try Self.measure(count: count, jobs: jobs) { job in
                guard case .success = decoder.decode(job) else { throw CommandFailure("a benchmark job was rejected") }
            }
            let foundation = try Self.measure(count: count, jobs: jobs) { job in
                _ = try JSONSerialization.jsonObject(with: Data(job.readableBytesView))
            }
            print(
                String(
                    format:
                        "jobs %@: JobDecoder %.3f CPU-s/100k jobs, JSONSerialization %.3f (decoder/reference %.2f×)",
                    label, salvo * 100_000 / Double(count), foundation * 100_000 / Double(count), salvo / foundation))
        }
    }

    /// CPU-seconds of `count` calls of `body`, cycling through `jobs`.
    private static func measure(count: Int, jobs: [ByteBuffer], _ body: (ByteBuffer) throws -> Void) throws -> Double {
        let start = CPUTime.current(.process)
        for index in 0..<count {
            try body(jobs[index % jobs.count])
        }
        return CPUTime.current(.process) - start
    }

    /// The shape `bench worker` produces.
    private static func job(index: Int, tokens: Int) -> ByteBuffer {
        let first = UInt64(index * tokens + 1)
        return ByteBuffer(
            string: BenchJob.text(
                id: "bench-1234567-\(index)", app: "bench", tokens: first...(first + UInt64(tokens) - 1)))
    }
}
