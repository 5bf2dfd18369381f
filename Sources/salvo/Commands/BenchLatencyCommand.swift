import ArgumentParser
import Foundation
import SalvoKafka

/// `salvo bench latency`: per-user latency while a campaign saturates the worker (issue 21,
/// point 3). From the Kafka produce time of each per-user job to the mock's 200, beside the
/// broker's own floor: an independent reader of the per-user topic in the same run, which
/// sees each record produce time → fetched.
///
/// The campaign backlog is produced before the worker starts, so the worker runs flat out; the
/// per-user jobs are produced one at a time at `--per-user-rate` once 5 % of the campaign was
/// accepted, and the run checks that the campaign was still going when the last one was answered
/// (otherwise the figure is not "under load" and the command fails). The mock answers at once.
struct BenchLatencyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "latency",
        abstract: "Per-user p50/p99 (Kafka produce → APNs 200) under a saturating campaign, against the broker's floor."
    )

    @Option(help: "Bootstrap brokers of a real Kafka.")
    var brokers: String

    @Option(help: "Campaign notifications produced before the worker starts (jobs of 1,000 tokens); enough to outlast the per-user phase.")
    var campaignNotifications = 1_000_000

    @Option(help: "Per-user jobs produced per second while the campaign runs.")
    var perUserRate = 200

    @Option(help: "Seconds of per-user jobs.")
    var perUserSeconds = 5

    @Option(help: "fetch.wait.max.ms of the independent reader (the floor).")
    var readerFetchWaitMilliseconds = 100

    func validate() throws {
        guard campaignNotifications >= 1_000, perUserRate >= 1, perUserSeconds >= 1 else {
            throw ValidationError("--campaign-notifications ≥ 1000, --per-user-rate ≥ 1, --per-user-seconds ≥ 1")
        }
    }

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("salvo-bench-latency-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let probe = BenchLatencyProbe()
        let stage = try await BenchWorkerStage(
            brokers: brokers, directory: directory, latencyMilliseconds: 0, pinning: false, validating: true, credential: .token,
            listeners: [probe])
        let prefix = "\(stage.prefix)-latency"
        do {
            try await stage.createTopics(prefix: prefix)
            let summary = try await measure(stage: stage, prefix: prefix, probe: probe)
            await stage.deleteTopics(prefix: prefix)
            await stage.stop()
            print(summary)
        } catch {
            await stage.deleteTopics(prefix: prefix)
            await stage.stop()
            throw error
        }
    }

    private func measure(stage: BenchWorkerStage, prefix: String, probe: BenchLatencyProbe) async throws -> String {
        let jobs = campaignNotifications / 1_000
        try await stage.produce(jobs: jobs, tokensPerJob: 1_000, topic: "\(prefix).jobs", runID: UInt32.random(in: 0...UInt32.max))
        let client = KafkaClientConfiguration(bootstrapServers: brokers)
        let reader = try KafkaTopicReader(
            topic: "\(prefix).jobs.priority", client: client, fetchWait: .milliseconds(readerFetchWaitMilliseconds)
        ) { event in
            if case .message(let message) = event, let produced = message.timestampMilliseconds {
                probe.floorSample(BenchLatencyProbe.nowMilliseconds() - produced)
            }
        }
        try await reader.start()
        let worker = try stage.startWorker(prefix: prefix)
        defer { if worker.isRunning { kill(worker.processIdentifier, SIGKILL) } }
        do {
            try await stage.waitForAccepted(jobs * 1_000 / 20, worker: worker, timeout: .seconds(600))
            let count = perUserRate * perUserSeconds
            try await producePerUser(count: count, topic: "\(prefix).jobs.priority", probe: probe)
            let deadline = ContinuousClock.now + .seconds(120)
            while probe.answered < count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            let campaignAcceptedAtEnd = stage.server.stats().accepted - probe.answered
            kill(worker.processIdentifier, SIGTERM)
            await reader.close()
            guard probe.answered == count else { throw CommandFailure("only \(probe.answered) of \(count) per-user pushes were answered") }
            guard campaignAcceptedAtEnd < jobs * 1_000 else {
                throw CommandFailure("the campaign ended before the last per-user push: not under load (raise --campaign-notifications)")
            }
            return probe.summary(campaignLeft: jobs * 1_000 - campaignAcceptedAtEnd)
        } catch {
            await reader.close()
            throw error
        }
    }

    /// One job per push, at the rate, each timed from the moment it went to the producer
    /// (librdkafka stamps the record's CreateTime in the same call). No linger: a batch wait
    /// would count as Kafka transit for both the worker and the floor, and hide the difference.
    private func producePerUser(count: Int, topic: String, probe: BenchLatencyProbe) async throws {
        var configuration = KafkaProducerConfiguration(client: KafkaClientConfiguration(bootstrapServers: brokers))
        configuration.linger = .zero
        let producer = try KafkaProducer(configuration: configuration, logger: CommandLogger.make(label: "salvo.bench.latency", verbose: false))
        let interval = Duration.seconds(1) / perUserRate
        let start = ContinuousClock.now
        for index in 0..<count {
            try await Task.sleep(until: start + interval * index, clock: .continuous)
            let token = BenchLatencyProbe.token(index)
            let text = BenchJob.text(id: "latency-\(index)", app: BenchWorkerStage.app, tokens: CollectionOfOne(UInt64(0))).replacingOccurrences(
                of: BenchJob.token(0), with: token)
            probe.produced(token: token, atMilliseconds: BenchLatencyProbe.nowMilliseconds())
            try await producer.enqueue(KafkaProducerMessage(topic: topic, key: Array(token.utf8), value: Array(text.utf8))) { _ in }
        }
        try await producer.flush(timeout: .seconds(30))
        await producer.shutdown()
    }
}
