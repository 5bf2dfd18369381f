import ArgumentParser
import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import SalvoAPNs
import SalvoHTTP2
import SalvoKafka
import SalvoMockAPNs
import SalvoPrimitives
import Synchronization

/// `salvo bench apns`: client CPU per request of the APNs pool against `h2load`, the C ceiling,
/// with the same request shape against the same local `nghttpd` over TLS, in one run.
///
/// The pool runs with every production feature on: certificate verification against the test
/// CA, a provider-token `authorization` header from the shared token provider, per-request
/// deadlines, keepalive timers, metrics calls, bounded in-flight. CPU is this process's
/// user+system time (getrusage) during the measured requests; h2load's is its rusage as a child.
struct BenchAPNsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apns",
        abstract: "CPU-seconds per 100k requests: the APNs pool vs h2load against a local nghttpd (TLS)."
    )

    @Option(help: "Requests measured, for each client.")
    var requests = 1_000_000

    @Option(help: "HTTP/2 connections (pool connections and h2load -c).")
    var connections = 1

    @Option(help: "Concurrent streams per connection (pool limit and h2load -m).")
    var concurrency = 100

    @Option(help: "Requests sent through the pool before measuring (connection set-up, first token).")
    var warmup = 20_000

    @Option(help: "Requests per batch handed to the pool.")
    var batch = 1_000

    @Option(help: "Rounds: the requests are split into this many pool runs, each followed by an h2load run.")
    var rounds = 5

    static let topic = "com.example.salvo"
    static let token = String(repeating: "ab", count: 32)
    static let apnsID = APNsID(high: 0x0123_4567_89ab_4def, low: 0x8123_4567_89ab_cdef)

    func run() async throws {
        guard self.requests > 0, self.connections > 0, self.concurrency > 0, self.batch > 0, self.warmup >= 0,
            (1...self.requests).contains(self.rounds)
        else {
            throw ValidationError(
                "requests, connections, concurrency, batch and rounds (at most requests) must be positive")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "salvo-bench-apns-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = try BenchFiles(directory: directory)
        let port = try await Self.freePort()
        let server = try BenchProcess.start(
            "/usr/sbin/nghttpd",
            [
                "-a", "127.0.0.1", "-m", "1000", "-d", files.documentRoot, String(port), files.serverKey,
                files.serverCertificate,
            ])
        defer { server.kill() }
        try await Self.waitUntilListening(port: port)

        let credential = try files.material.tokenCredential()
        let provider = try APNsTokenProvider(credential: credential)
        let pool = try self.makePool(
            credential: credential, provider: provider, port: port, caPath: files.caCertificate)
        // Like the worker's requests, each carries an apns-id (the worker's are deterministic per
        // job and token); h2load sends the same header.
        let request = try APNsRequest(
            token: DeviceToken(hex: Self.token), topic: APNsTopic(Self.topic), pushType: .alert, priority: .immediate,
            apnsID: Self.apnsID, payload: ByteBuffer(bytes: files.payload))

        // Alternate the two clients round by round, so that load from elsewhere on the machine
        // drifting during the run weighs on both alike.
        _ = try await self.drive(pool, request: request, count: self.warmup)
        let jwt = try provider.authorization(for: .next()).jwt
        var client = Measurement()
        var h2load = Measurement()
        for round in 0..<self.rounds {
            let count = self.requests / self.rounds + (round < self.requests % self.rounds ? 1 : 0)
            let before = CPUTime.current(.process)
            let start = ContinuousClock.now
            let outcome = try await self.drive(pool, request: request, count: count)
            client.add(requests: count, cpu: CPUTime.current(.process) - before, wall: start.duration(to: .now))
            guard outcome.accepted == count else {
                await pool.shutdown()
                throw BenchFailure(
                    "the pool got \(outcome.accepted) of \(count) requests accepted (\(outcome.other) other outcomes)")
            }
            h2load.add(try self.runH2Load(requests: count, port: port, jwt: jwt, body: files.payloadPath))
        }
        await pool.shutdown()

        print(
            "apns client: \(Self.format(client.cpuPer100k)) CPU-s/100k, h2load: \(Self.format(h2load.cpuPer100k)) CPU-s/100k, "
                + "ratio \(Self.format(client.cpuPer100k / h2load.cpuPer100k, digits: 2))")
        print(
            "  details: \(self.requests) requests each in \(self.rounds) alternating rounds, \(self.connections) connection(s) x "
                + "\(self.concurrency) streams, TLS; pool \(Int(client.rate)) req/s wall (\(Self.format(client.cpu)) CPU-s), "
                + "h2load \(Int(h2load.rate)) req/s wall (\(Self.format(h2load.cpu)) CPU-s); libnghttp2 \(NGHTTP2Library.version)"
        )
    }

    // MARK: The pool

    private func makePool(
        credential: APNsTokenCredential,
        provider: APNsTokenProvider<ContinuousClock>,
        port: Int,
        caPath: String
    ) throws -> APNsConnectionPool {
        var configuration = APNsConnectionPool.Configuration()
        configuration.connectionCount = self.connections
        configuration.maximumStreamsPerConnection = self.concurrency
        configuration.connection.transport = .tls(trustRoots: .certificates(try NIOSSLCertificate.fromPEMFile(caPath)))
        return try APNsConnectionPool(
            credential: credential, tokenProvider: provider,
            environment: .custom(host: "127.0.0.1", port: port, behavesAs: .production),
            configuration: configuration, eventLoop: MultiThreadedEventLoopGroup.singleton.next(),
            logger: Logger(label: "salvo.bench"))
    }

    /// Sends `count` copies of `request` in batches (suspending while the pool is full) and
    /// waits for every outcome.
    private func drive(_ pool: APNsConnectionPool, request: APNsRequest, count: Int) async throws -> BenchTally.Counts {
        let tally = BenchTally()
        let batch = Array(repeating: request, count: min(self.batch, max(count, 1)))
        var sent = 0
        while sent < count {
            let size = min(batch.count, count - sent)
            await pool.send(size == batch.count ? batch : Array(batch.prefix(size))) { _, outcome in
                tally.record(outcome)
            }
            sent += size
        }
        let deadline = ContinuousClock.now + .seconds(120)
        while tally.counts.total < count {
            guard ContinuousClock.now < deadline else { throw BenchFailure("outcomes missing after 120 s") }
            try await Task.sleep(for: .milliseconds(2))
        }
        return tally.counts
    }

    // MARK: h2load

    private func runH2Load(requests: Int, port: Int, jwt: String, body: String) throws -> Measurement {
        let before = CPUTime.current(.children)
        let start = ContinuousClock.now
        let output = try BenchProcess.run(
            "/usr/bin/h2load",
            [
                "-n", String(requests), "-c", String(self.connections), "-m", String(self.concurrency),
                "-d", body,
                "-H", "apns-topic: \(Self.topic)", "-H", "apns-push-type: alert", "-H", "apns-priority: 10",
                "-H", "apns-id: \(Self.apnsID)", "-H", "authorization: bearer \(jwt)",
                "https://127.0.0.1:\(port)/3/device/\(Self.token)",
            ])
        let wall = start.duration(to: .now)
        guard output.contains("\(requests) succeeded") else {
            throw BenchFailure("h2load did not succeed on every request:\n\(output)")
        }
        var measurement = Measurement()
        measurement.add(requests: requests, cpu: CPUTime.current(.children) - before, wall: wall)
        return measurement
    }

    // MARK: Helpers

    private static func freePort() async throws -> Int {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(
            host: "127.0.0.1", port: 0
        ).get()
        let port = channel.localAddress?.port ?? 0
        try await channel.close()
        return port
    }

    private static func waitUntilListening(port: Int) async throws {
        for _ in 0..<200 {
            if let channel = try? await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(host: "127.0.0.1", port: port).get()
            {
                try? await channel.close()
                return
            }
            try await Task.sleep(for: .milliseconds(25))
        }
        throw BenchFailure("nghttpd did not start listening on port \(port)")
    }

    private static func format(_ value: Double, digits: Int = 3) -> String {
        String(format: "%.\(digits)f", value)
    }
}

/// Requests, CPU and wall time of one client, summed over the rounds.
private struct Measurement {
    var requests = 0
    var cpu = 0.0
    var wall = Duration.zero

    mutating func add(requests: Int, cpu: Double, wall: Duration) {
        self.requests += requests
        self.cpu += cpu
        self.wall += wall
    }

    mutating func add(_ other: Measurement) {
        self.add(requests: other.requests, cpu: other.cpu, wall: other.wall)
    }

    var cpuPer100k: Double { self.cpu / Double(self.requests) * 100_000 }
    var rate: Double { Double(self.requests) / self.wall.secondsValue }
}

/// A failure of the benchmark's own machinery (a child process, a missing outcome).
private struct BenchFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Counts outcomes from the pool's event loop.
private final class BenchTally: Sendable {
    struct Counts {
        var accepted: Int
        var other: Int
        var total: Int { self.accepted + self.other }
    }

    private let accepted = Atomic(0)
    private let other = Atomic(0)

    func record(_ outcome: APNsOutcome) {
        if outcome.isAccepted {
            self.accepted.add(1, ordering: .relaxed)
        } else {
            self.other.add(1, ordering: .relaxed)
        }
    }

    var counts: Counts {
        Counts(accepted: self.accepted.load(ordering: .relaxed), other: self.other.load(ordering: .relaxed))
    }
}

/// The benchmark's throw-away TLS material (the mock APNs's generator: a CA, a server certificate
/// for 127.0.0.1, a provider-token key) and request files, in a temporary directory.
private struct BenchFiles {
    let material: MockTLSMaterial
    let caCertificate: String
    let serverCertificate: String
    let serverKey: String
    let documentRoot: String
    let payloadPath: String
    let payload: [UInt8]

    init(directory: URL) throws {
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
        self.material = try MockTLSMaterial.generate(topic: BenchAPNsCommand.topic, hosts: ["127.0.0.1"])
        self.caCertificate = path("ca.pem")
        self.serverCertificate = path("server.pem")
        self.serverKey = path("server-key.pem")
        self.documentRoot = path("www")
        self.payloadPath = path("payload.json")
        try self.material.caCertificatePEM.write(toFile: self.caCertificate, atomically: true, encoding: .utf8)
        try self.material.serverCertificatePEM.write(toFile: self.serverCertificate, atomically: true, encoding: .utf8)
        try self.material.serverPrivateKeyPEM.write(toFile: self.serverKey, atomically: true, encoding: .utf8)
        let devices = directory.appendingPathComponent("www/3/device")
        try FileManager.default.createDirectory(at: devices, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(
            atPath: devices.appendingPathComponent(BenchAPNsCommand.token).path, contents: Data())
        // 200 bytes of JSON, the shape of a typical alert.
        var payload = #"{"aps":{"alert":{"title":"Salvo benchmark","body":""#
        let tail = #""},"sound":"default"}}"#
        payload += String(repeating: "x", count: 200 - payload.utf8.count - tail.utf8.count) + tail
        self.payload = Array(payload.utf8)
        try payload.write(toFile: self.payloadPath, atomically: true, encoding: .utf8)
    }
}

/// Child processes of the benchmark.
private struct BenchProcess {
    let process: Process

    static func start(_ path: String, _ arguments: [String]) throws -> BenchProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return BenchProcess(process: process)
    }

    /// Runs to completion and returns standard output and error; throws on a failure status.
    static func run(_ path: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchFailure("\(path) failed with status \(process.terminationStatus):\n\(output)")
        }
        return output
    }

    /// SIGKILL (nghttpd ignores SIGTERM).
    func kill() {
        guard self.process.isRunning else { return }
        Foundation.kill(self.process.processIdentifier, SIGKILL)
        self.process.waitUntilExit()
    }
}
