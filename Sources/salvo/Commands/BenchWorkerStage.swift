import ArgumentParser
import Foundation
import Logging
import NIOCore
import NIOPosix
import SalvoKafka
import SalvoMockAPNs
import SalvoPrimitives
import Synchronization

/// What `salvo bench worker` runs on: the mock APNs over TLS with a generated CA and token key,
/// and per measurement a `salvo worker` child on topics of its own, without campaign control or
/// job checkpoints (`topics.control` and `topics.progress` null). Its own: a worker starts a new
/// group at records up to an hour old, so on shared topics the per-user worker would also replay
/// the campaign measured before it, and count those cheap notifications as its own.
struct BenchWorkerStage {
    enum Lane { case campaign, priority }

    enum Credential: String, ExpressibleByArgument, CaseIterable {
        case token
        case certificate
    }

    struct Result {
        var label: String
        var notifications: Int
        var cpuSeconds: Double
        /// This process's CPU over the same window: the mock APNs answering (and the bench polling
        /// it), measured on the same host at the same time as the worker.
        var mockCPUSeconds: Double
        var wallSeconds: Double
        var peakRSSMegabytes: Double

        var summary: String {
            String(
                format:
                    "worker %@: %.3f CPU-s/100k notifications, %.0f notifications/s, peak RSS %.0f MB (%d notifications; mock %.3f, worker/mock %.2f)",
                label, cpuSecondsPer100k, Double(notifications) / wallSeconds, peakRSSMegabytes, notifications,
                mockCPUSeconds / Double(notifications) * 100_000, cpuSeconds / mockCPUSeconds)
        }

        var cpuSecondsPer100k: Double { cpuSeconds / Double(notifications) * 100_000 }

        /// The median (of an even count: the mean of the middle two) and range of several
        /// measurements of one mode.
        static func medianSummary(of results: [Result]) -> String {
            func median(_ values: [Double]) -> Double {
                let sorted = values.sorted()
                let middle = sorted.count / 2
                return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
            }
            let figures = results.map(\.cpuSecondsPer100k)
            return String(
                format:
                    "worker %@: median %.3f CPU-s/100k notifications over %d rounds (%.3f–%.3f), worker/mock median %.2f, peak RSS %.0f MB",
                results[0].label, median(figures), figures.count, figures.min() ?? 0, figures.max() ?? 0,
                median(results.map { $0.cpuSeconds / $0.mockCPUSeconds }), results.map(\.peakRSSMegabytes).max() ?? 0)
        }
    }

    static let app = "bench"
    static let topic = "com.example.bench"

    /// The cluster (`--kafka-config`, `--brokers`); the worker child gets the same settings.
    let kafka: KafkaClientConfiguration
    let directory: URL
    let prefix: String
    let server: MockAPNsServer
    let port: Int
    let tokenKey: (keyID: String, teamID: String, path: String)
    let logger: Logger
    /// The mock's own event loop: one thread, so that pinned it stays on its one CPU.
    let mockGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    /// When set: this process (the mock and the producer) is kept to CPU 0, so it never takes
    /// more than one core from the worker, which may use every CPU (its consumer tasks and its
    /// event loop want two; confining it to the rest would turn their hand-overs into context
    /// switches on one core).
    let workerCPUs: ClosedRange<Int>?

    let credential: Credential
    let launch: BenchWorkerLaunch

    init(
        kafka: KafkaClientConfiguration, directory: URL, latencyMilliseconds: Int, pinning: Bool, validating: Bool,
        credential: Credential,
        launch: BenchWorkerLaunch = .native, listeners: [any MockAPNsListener] = []
    ) async throws {
        self.kafka = kafka
        self.launch = launch
        self.directory = directory
        prefix = "salvo-bench-\(UInt32.random(in: 0...UInt32.max))"
        logger = CommandLogger.make(label: "salvo.bench.worker", verbose: false)

        let material = try MockTLSMaterial.generate(topic: Self.topic)
        let argument = try material.write(to: directory.appendingPathComponent("tls").path)
        let parts = argument.split(separator: ":", maxSplits: 2).map(String.init)
        tokenKey = (parts[0], parts[1], parts[2])
        self.credential = credential
        var configuration = MockAPNsServer.Configuration()
        switch credential {
        case .token:
            configuration.transport = .tls(try material.serverTLS(acceptClientCertificates: false))
            configuration.tokenKeys = [material.tokenKey]
        case .certificate:
            configuration.transport = .tls(try material.serverTLS(acceptClientCertificates: true))
        }
        if !validating { configuration.validation = .none }
        if latencyMilliseconds > 0 {
            configuration.scenario = try MockScenario.parse(
                "latency: {distribution: fixed, fixed_ms: \(latencyMilliseconds)}")
        }
        server = try MockAPNsServer(
            configuration: configuration, listeners: listeners, eventLoopGroup: mockGroup, logger: logger)
        port = try await server.start().port
        workerCPUs = pinning && CPUAffinity.onlineCPUs >= 2 ? 0...(CPUAffinity.onlineCPUs - 1) : nil
        pinSelf()
    }

    private static let topicSuffixes = ["jobs", "jobs.priority", "retry", "feedback", "dlq"]

    func createTopics(prefix: String) async throws {
        let admin = try KafkaAdmin(configuration: kafka, logger: logger)
        let names = Self.topicSuffixes.map { "\(prefix).\($0)" }
        do {
            _ = try await admin.createTopics(names.map { KafkaNewTopic(name: $0, partitions: 4, replicationFactor: 1) })
        } catch {
            await admin.close()
            throw error
        }
        await admin.close()
    }

    /// Best effort: the test broker keeps topics in memory.
    func deleteTopics(prefix: String) async {
        guard
            let admin = try? KafkaAdmin(
                configuration: kafka, logger: logger)
        else { return }
        try? await admin.deleteTopics(Self.topicSuffixes.map { "\(prefix).\($0)" })
        await admin.close()
    }

    /// Produces the backlog, runs a worker until the mock accepted all of it, and measures.
    func measure(label: String, lane: Lane, jobs: Int, tokensPerJob: Int) async throws -> Result {
        let runID = UInt32.random(in: 0...UInt32.max)
        let runPrefix = "\(prefix)-\(runID)"
        try await createTopics(prefix: runPrefix)
        do {
            let result = try await measure(
                label: label, lane: lane, jobs: jobs, tokensPerJob: tokensPerJob, runID: runID, runPrefix: runPrefix)
            await deleteTopics(prefix: runPrefix)
            return result
        } catch {
            await deleteTopics(prefix: runPrefix)
            throw error
        }
    }

    private func measure(
        label: String, lane: Lane, jobs: Int, tokensPerJob: Int, runID: UInt32, runPrefix: String
    ) async throws -> Result {
        let notifications = jobs * tokensPerJob
        let topic = lane == .campaign ? "\(runPrefix).jobs" : "\(runPrefix).jobs.priority"
        try await produce(jobs: jobs, tokensPerJob: tokensPerJob, topic: topic, runID: runID)
        let acceptedBefore = server.stats().accepted
        let worker = try startWorker(prefix: runPrefix)
        defer { if worker.isRunning { kill(worker.processIdentifier, SIGKILL) } }
        pin(worker)

        let start = acceptedBefore + notifications / 20
        try await waitForAccepted(start, worker: worker, timeout: launch.timeout)
        // Again: both processes may have started threads since.
        pinSelf()
        pin(worker)
        let cpuAtStart = try Self.cpuSeconds(of: worker.processIdentifier)
        let mockCPUAtStart = CPUTime.current(.process)
        let acceptedAtStart = server.stats().accepted
        let clockAtStart = ContinuousClock.now
        try await waitForAccepted(acceptedBefore + notifications, worker: worker, timeout: launch.timeout)
        let cpu = try Self.cpuSeconds(of: worker.processIdentifier) - cpuAtStart
        let mockCPU = CPUTime.current(.process) - mockCPUAtStart
        let wall = ContinuousClock.now - clockAtStart
        let rss = try Self.peakRSSMegabytes(of: worker.processIdentifier)
        let measured = Int(server.stats().accepted - acceptedAtStart)
        kill(worker.processIdentifier, SIGTERM)
        try await launch.awaitExit(of: worker)
        return Result(
            label: label, notifications: measured, cpuSeconds: cpu, mockCPUSeconds: mockCPU,
            wallSeconds: wall.secondsValue,
            peakRSSMegabytes: rss)
    }

    /// The mock (and the rest of this process) on CPU 0 only.
    private func pinSelf() {
        guard workerCPUs != nil else { return }
        CPUAffinity.pin(process: getpid(), to: 0...0)
    }

    private func pin(_ worker: Process) {
        guard let workerCPUs else { return }
        CPUAffinity.pin(process: worker.processIdentifier, to: workerCPUs)
    }

    func waitForAccepted(_ target: Int, worker: Process, timeout: Duration) async throws {
        let deadline = ContinuousClock.now + timeout
        while server.stats().accepted < target {
            guard worker.isRunning else {
                throw CommandFailure(
                    "the worker exited (status \(worker.terminationStatus)) before the mock accepted \(target)")
            }
            guard ContinuousClock.now < deadline else {
                throw CommandFailure("the mock accepted \(server.stats().accepted) of \(target) in time")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    func produce(jobs: Int, tokensPerJob: Int, topic: String, runID: UInt32) async throws {
        let producer = try KafkaProducer(
            configuration: KafkaProducerConfiguration(client: kafka),
            logger: logger)
        let failures = Atomic<Int>(0)
        var counter: UInt64 = UInt64(runID) << 32
        for job in 0..<jobs {
            let text = BenchJob.text(
                id: "bench-\(runID)-\(job)", app: Self.app, tokens: (counter + 1)...(counter + UInt64(tokensPerJob)))
            counter += UInt64(tokensPerJob)
            try await producer.enqueue(
                KafkaProducerMessage(topic: topic, key: Array("bench-\(job)".utf8), value: Array(text.utf8))
            ) { result in
                if case .failure = result { failures.add(1, ordering: .relaxed) }
            }
        }
        try await producer.flush(timeout: .seconds(300))
        await producer.shutdown()
        guard failures.load(ordering: .relaxed) == 0 else {
            throw CommandFailure("\(failures.load(ordering: .relaxed)) jobs were not produced")
        }
    }

    /// The cluster's properties for the worker child's `kafka:` block: printable ones inline,
    /// secrets (``KafkaPropertyRedaction``) through `properties_files`, each in a file of this
    /// stage's directory readable by its owner only, so no secret is written into the YAML.
    private func kafkaPropertiesYAML() throws -> String {
        var inline: [String] = []
        var files: [String] = []
        for (name, value) in kafka.properties.sorted(by: { $0.key < $1.key }) {
            if KafkaPropertyRedaction.isPrintable(property: name) {
                inline.append("\(name): \"\(value)\"")
                continue
            }
            let path = directory.appendingPathComponent("kafka-property-\(files.count)").path
            guard
                FileManager.default.createFile(
                    atPath: path, contents: Data(value.utf8), attributes: [.posixPermissions: 0o600])
            else { throw CommandFailure("cannot write \(path)", exit: .software) }
            files.append("\(name): \(path)")
        }
        return
            "\n  properties: {\(inline.joined(separator: ", "))}\n  properties_files: {\(files.joined(separator: ", "))}"
    }

    /// A worker on the topics named `prefix.…`, in a group of the same name.
    func startWorker(
        prefix: String, consumerProperties: [String: String] = [:], maximumStreams: Int? = nil,
        queueDelayTargetMilliseconds: Int? = nil
    ) throws -> Process {
        let lanes = queueDelayTargetMilliseconds.map { "lanes: {queue_delay_target: \($0)ms}\n" } ?? ""
        let extra = consumerProperties.sorted { $0.key < $1.key }.map { ", \($0.key): \"\($0.value)\"" }.joined()
        let yaml = """
            kafka:
              brokers: [\(kafka.brokers.map { "\"\($0)\"" }.joined(separator: ", "))]\(try kafkaPropertiesYAML())
              consumer_properties: {session.timeout.ms: "6000", heartbeat.interval.ms: "500"\(extra)}
            group_id: \(prefix)
            topics: {jobs: \(prefix).jobs, priority: \(prefix).jobs.priority, retry: \(prefix).retry, feedback: \(prefix).feedback, dead_letter: \(prefix).dlq, control: null, progress: null}
            apps:
              \(Self.app):
                bundle_id: \(Self.topic)
                credential: \(credentialYAML)
                environments:
                  - {host: 127.0.0.1, port: \(port), behaves_as: production, ca_file: \(directory.path)/tls/ca.pem, tls_server_name: localhost}
                pool: {connections: 2\(maximumStreams.map { ", max_streams: \($0)" } ?? "")}
            device_rate_limit: null
            operations: null
            log_level: error

            """ + lanes
        let file = directory.appendingPathComponent("\(prefix).yaml")
        try yaml.write(to: file, atomically: true, encoding: .utf8)
        let process = launch.process(config: file.path)
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    private var credentialYAML: String {
        switch credential {
        case .token:
            return "{token: {key_file: \(tokenKey.path), key_id: \(tokenKey.keyID), team_id: \(tokenKey.teamID)}}"
        case .certificate:
            let tls = directory.appendingPathComponent("tls").path
            return
                "{certificate: {certificate_file: \(tls)/\(MockTLSMaterial.FileName.clientCertificate), key_file: \(tls)/\(MockTLSMaterial.FileName.clientPrivateKey)}}"
        }
    }

    /// utime + stime of `pid` from /proc, in seconds.
    static func cpuSeconds(of pid: Int32) throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
        guard let close = stat.lastIndex(of: ")") else { throw CommandFailure("unreadable /proc/\(pid)/stat") }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else {
            throw CommandFailure("unreadable /proc/\(pid)/stat")
        }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// VmHWM (peak resident set) of `pid`, in MB.
    static func peakRSSMegabytes(of pid: Int32) throws -> Double {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Double($0) })
        else { throw CommandFailure("no VmHWM in /proc/\(pid)/status") }
        return kilobytes / 1024
    }

    func stop() async {
        await server.shutdown()
        try? await mockGroup.shutdownGracefully()
    }
}
