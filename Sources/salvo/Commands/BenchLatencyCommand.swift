import ArgumentParser
import Foundation
import SalvoKafka
import SalvoMockAPNs
import SalvoPrimitives

/// `salvo bench latency`: per-user latency while a campaign saturates the worker.
/// From the Kafka produce time of each per-user job to the mock's 200, beside the
/// broker's own floor: an independent consumer of the per-user topic in the same run (a group of
/// its own, the worker's consumer settings), which sees each record produce time → fetched.
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

    /// A real Kafka.
    @OptionGroup var kafka: KafkaConnectionOptions

    @Option(
        help:
            "Campaign notifications produced before the worker starts (jobs of 1,000 tokens); enough to outlast the per-user phase."
    )
    var campaignNotifications = 1_000_000

    @Option(help: "Per-user jobs produced per second while the campaign runs.")
    var perUserRate = 200

    @Option(name: .customLong("per-user-duration"), help: "How long per-user jobs are produced (e.g. 5s).")
    var perUserDuration: DurationArgument = .seconds(5)

    @Option(
        name: .customLong("worker-fetch-wait"),
        help:
            "fetch.wait.max.ms of the worker's consumers (both) and of the floor's (e.g. 10ms); default: librdkafka's (500ms)."
    )
    var workerFetchWait: DurationArgument?

    @Option(help: "The worker pool's max_streams per connection (2 connections); default: the pool's (1,000).")
    var maxStreams: Int?

    @Option(
        name: .customLong("queue-delay-target"),
        help:
            "The worker's lanes.queue_delay_target (0s turns the adaptive flight limit off); default: the worker's (5ms)."
    )
    var queueDelayTarget: DurationArgument?

    /// Whole seconds of per-user jobs.
    private var perUserSeconds: Int { perUserDuration.milliseconds / 1_000 }

    func validate() throws {
        guard campaignNotifications >= 1_000, perUserRate >= 1, perUserSeconds >= 1 else {
            throw ValidationError("--campaign-notifications ≥ 1000, --per-user-rate ≥ 1, --per-user-duration ≥ 1s")
        }
    }

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "salvo-bench-latency-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let probe = BenchLatencyProbe()
        let stage = try await BenchWorkerStage(
            kafka: try kafka.client(clientID: "salvo-bench"), directory: directory, latencyMilliseconds: 0,
            pinning: false, validating: true,
            credential: .token,
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
        try await stage.produce(
            jobs: jobs, tokensPerJob: 1_000, topic: "\(prefix).jobs", runID: UInt32.random(in: 0...UInt32.max))
        let workerProperties = workerFetchWait.map { ["fetch.wait.max.ms": String($0.milliseconds)] } ?? [:]
        let floor = try floorConsumer(
            topic: "\(prefix).jobs.priority", properties: workerProperties, client: stage.kafka)
        let reading = Task {
            for try await message in floor.messages {
                guard let key = message.key, let produced = message.timestampMilliseconds else { continue }
                if key.first == UInt8(ascii: "f") {
                    probe.floorSample(BenchLatencyProbe.nowMilliseconds() - produced)
                } else if key == Array("warm-up".utf8) {
                    probe.floorIsReading()
                }
            }
        }
        defer { reading.cancel() }
        let worker = try stage.startWorker(
            prefix: prefix, consumerProperties: workerProperties, maximumStreams: maxStreams,
            queueDelayTargetMilliseconds: queueDelayTarget?.milliseconds)
        defer { if worker.isRunning { kill(worker.processIdentifier, SIGKILL) } }
        do {
            try await stage.waitForAccepted(jobs * 1_000 / 20, worker: worker, timeout: .seconds(600))
            let count = perUserRate * perUserSeconds
            let (acceptedBefore, startedAt) = (stage.server.stats().accepted, ContinuousClock.now)
            try await producePerUser(count: count, topic: "\(prefix).jobs.priority", probe: probe, client: stage.kafka)
            let deadline = ContinuousClock.now + .seconds(120)
            while probe.answered < count, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            let campaignAcceptedAtEnd = stage.server.stats().accepted - probe.answered
            let elapsed = startedAt.duration(to: .now)
            let rate =
                Double(campaignAcceptedAtEnd - acceptedBefore)
                / elapsed.secondsValue
            kill(worker.processIdentifier, SIGTERM)
            try? await floor.close()
            guard probe.answered == count else {
                throw CommandFailure("only \(probe.answered) of \(count) per-user pushes were answered")
            }
            guard campaignAcceptedAtEnd < jobs * 1_000 else {
                throw CommandFailure(
                    "the campaign ended before the last per-user push: not under load (raise --campaign-notifications)")
            }
            return probe.summary(campaignLeft: jobs * 1_000 - campaignAcceptedAtEnd)
                + String(format: ", campaign %.0f notifications/s meanwhile", rate)
        } catch {
            try? await floor.close()
            throw error
        }
    }

    /// The floor: a consumer of the per-user topic in a group of its own, with the settings the
    /// worker's priority consumer has (the same class, `fetch.wait.max.ms` included), so the only
    /// difference left is the worker itself.
    private func floorConsumer(
        topic: String, properties: [String: String], client: KafkaClientConfiguration
    ) throws -> KafkaConsumer {
        var configuration = KafkaConsumerConfiguration(
            client: client, groupID: "\(topic).floor", topics: [topic])
        configuration.sessionTimeout = .seconds(6)
        configuration.heartbeatInterval = .milliseconds(500)
        configuration.properties = properties
        return try KafkaConsumer(
            configuration: configuration, logger: CommandLogger.make(label: "salvo.bench.latency", verbose: false))
    }

    /// One job per push, at the rate, each timed from the moment it went to the producer
    /// (librdkafka stamps the record's CreateTime in the same call). No linger: a batch wait
    /// would count as Kafka transit for both the worker and the floor, and hide the difference.
    private func producePerUser(
        count: Int, topic: String, probe: BenchLatencyProbe, client: KafkaClientConfiguration
    ) async throws {
        var configuration = KafkaProducerConfiguration(client: client)
        configuration.linger = .zero
        let producer = try KafkaProducer(
            configuration: configuration, logger: CommandLogger.make(label: "salvo.bench.latency", verbose: false))
        // Warm-up: the producer's first record to a topic waits for its connection and the
        // topic's metadata (measured: up to ~500 ms), which a long-running producer never pays.
        // Its token is not a per-user one and its key is not a token, so nobody measures it.
        let warmUp = BenchJob.text(id: "latency-warm-up", app: BenchWorkerStage.app, tokens: CollectionOfOne(UInt64(1)))
        try await producer.enqueue(
            KafkaProducerMessage(topic: topic, key: Array("warm-up".utf8), value: Array(warmUp.utf8))
        ) { _ in }
        try await producer.flush(timeout: .seconds(30))
        // The floor's group join is over once it read the warm-up record.
        let joined = ContinuousClock.now + .seconds(30)
        while !probe.floorReads, ContinuousClock.now < joined { try await Task.sleep(for: .milliseconds(20)) }
        guard probe.floorReads else { throw CommandFailure("the floor consumer read nothing within 30 s") }
        let interval = Duration.seconds(1) / perUserRate
        let start = ContinuousClock.now
        for index in 0..<count {
            try await Task.sleep(until: start + interval * index, clock: .continuous)
            let token = BenchLatencyProbe.token(index)
            let text = BenchJob.text(
                id: "latency-\(index)", app: BenchWorkerStage.app, tokens: CollectionOfOne(UInt64(0))
            ).replacingOccurrences(
                of: BenchJob.token(0), with: token)
            probe.produced(token: token, atMilliseconds: BenchLatencyProbe.nowMilliseconds())
            try await producer.enqueue(
                KafkaProducerMessage(topic: topic, key: Array(token.utf8), value: Array(text.utf8))
            ) { _ in }
        }
        try await producer.flush(timeout: .seconds(30))
        await producer.shutdown()
    }
}
