import ArgumentParser
import Foundation
import Logging
import NIOPosix
import SalvoKafka
import SalvoMockAPNs
import Synchronization

/// `salvo bench worker`: CPU-seconds per 100k notifications of a `salvo worker` process, end to
/// end (Kafka in, TLS + JWT HTTP/2 out), in campaign mode and per-user mode, plus its peak RSS.
///
/// The backlog is produced before the worker starts, the mock APNs (TLS, JWT verification on)
/// runs in this process, and the worker is a child process, so its CPU (from /proc) counts the
/// worker alone. The window measured starts once 5 % of the notifications were accepted (group
/// join and TLS set-up excluded) and ends when the last one is.
///
/// On a shared machine one figure moves by ±10 % from run to run, so `--rounds` repeats the
/// modes alternately (each measurement on topics and a worker of its own) and adds each mode's
/// median and range.
struct BenchWorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract:
            "Worker CPU-seconds per 100k notifications (campaign and per-user mode) and peak RSS, against a real Kafka."
    )

    /// A real Kafka: the embedded cluster keeps too little to be a benchmark.
    @OptionGroup var kafka: KafkaConnectionOptions

    @Option(help: "Notifications in campaign mode (jobs of --tokens-per-job tokens).")
    var campaignNotifications = 1_000_000

    @Option(name: .customLong("tokens-per-job"), help: "Tokens per campaign job.")
    var tokensPerJob = 1_000

    @Option(help: "Notifications (one job each) in per-user mode.")
    var perUserNotifications = 200_000

    @Option(
        name: .customLong("mock-latency"),
        help: "Fixed latency of the mock's answers (e.g. 20ms; a slow gateway keeps the backlog in the worker).")
    var mockLatency = DurationArgument(.zero, text: "0s")

    @Option(help: "Measurements per mode, taken alternately; with more than one, each mode's median and range follow.")
    var rounds = 1

    @Option(help: "Which modes to run: campaign, per-user or both.")
    var mode: Mode = .both

    @Option(
        help:
            "How the worker authenticates: token (ES256 JWT, checked by the mock) or certificate (TLS client certificate)."
    )
    var credential: BenchWorkerStage.Credential = .token

    @Flag(
        help:
            "Answer every request 200 at once (the mock's load fast path: no validation, no JWT check), so the mock keeps up with the worker and the worker is the bottleneck."
    )
    var fastMock = false

    @Flag(
        name: .customLong("pin-cpus"),
        inversion: .prefixedNo,
        help:
            "Keep the mock APNs (this process) to CPU 0, so the load generator never takes more than one core from the measured worker (needs 2 or more CPUs). Off by default: on 2 cores it lowered campaign mode's figure a little and raised per-user mode's (the mock's one thread became the bottleneck)."
    )
    var pinCPUs = false

    @Option(
        help:
            "Run the worker child from this executable (the instruction gate: a copy stripped of debug info); default: this salvo."
    )
    var workerExecutable: String?

    @Option(
        help:
            "A command prefix for the worker child, split at spaces, e.g. \"valgrind --tool=callgrind --callgrind-out-file=/tmp/w.out\"; the worker is stopped with SIGTERM once the mock accepted everything, and awaited, so the tool writes its output. Only the worker runs under it (the mock stays native)."
    )
    var workerWrapper: String?

    @Option(help: "How long each wait may take (first 5 % accepted, all accepted, the worker's exit).")
    var timeout: DurationArgument = .seconds(1_800)

    enum Mode: String, ExpressibleByArgument, CaseIterable {
        case campaign
        case perUser = "per-user"
        case both
    }

    func validate() throws {
        guard rounds >= 1 else { throw ValidationError("--rounds must be at least 1") }
        guard campaignNotifications >= tokensPerJob, tokensPerJob >= 1, perUserNotifications >= 1 else {
            throw ValidationError("each mode needs at least one job")
        }
    }

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "salvo-bench-worker-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let bench = try await BenchWorkerStage(
            kafka: try kafka.client(clientID: "salvo-bench"), directory: directory,
            latencyMilliseconds: mockLatency.milliseconds, pinning: pinCPUs,
            validating: !fastMock, credential: credential,
            launch: BenchWorkerLaunch(
                executable: workerExecutable, wrapper: workerWrapper, timeout: timeout.duration))
        var results: [BenchWorkerStage.Result] = []
        do {
            for _ in 0..<rounds {
                if mode != .perUser {
                    let result = try await bench.measure(
                        label: "campaign (1 job → \(tokensPerJob) tokens)", lane: .campaign,
                        jobs: campaignNotifications / tokensPerJob, tokensPerJob: tokensPerJob)
                    results.append(result)
                    if rounds > 1 { print(result.summary) }
                }
                if mode != .campaign {
                    let result = try await bench.measure(
                        label: "per-user (1 job → 1 token)", lane: .priority, jobs: perUserNotifications,
                        tokensPerJob: 1)
                    results.append(result)
                    if rounds > 1 { print(result.summary) }
                }
            }
        } catch {
            await bench.stop()
            throw error
        }
        await bench.stop()
        guard rounds > 1 else {
            for result in results { print(result.summary) }
            return
        }
        for label in Set(results.map(\.label)).sorted() {
            print(BenchWorkerStage.Result.medianSummary(of: results.filter { $0.label == label }))
        }
    }
}
