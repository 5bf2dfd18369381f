import Crypto
import Foundation
import Logging
import NIOCore
import NIOPosix
import SalvoAPNs
import SalvoLoadTest
import SalvoMockAPNs
import Testing

/// End-to-end latency against a real mock with a known fixed latency. The worker is not part of
/// this module, so the test sends each job's notification itself, at the job's scheduled time,
/// through `APNsConnectionPool` with the worker's deterministic apns-ids.
@Suite("Latency against the mock")
struct LoadTestLatencyTests {
    @Test(
        "fixed 50 ms mock latency: the in-process listener reports 50 ms ≤ p50 ≤ 90 ms; the record file's arrival times lack the 50 ms"
    )
    func fixedLatency() async throws {
        let directory = try TestScenarios.temporaryDirectory()
        defer { TestScenarios.remove(directory) }
        var scenario = LoadTestScenario()
        scenario.phases = [.init(durationSeconds: 0.5, rate: 100)]
        // The measurements exist before the mock (its listener feeds one); the schedule's start is
        // set once the pool's connection is up, so connecting is not counted as latency.
        let viaListener = LoadTestMeasurement(runID: "lt-lat", startMilliseconds: 0)
        let viaRecord = LoadTestMeasurement(runID: "lt-lat", startMilliseconds: 0)

        var configuration = MockAPNsServer.Configuration()
        configuration.scenario.latency = .fixed(milliseconds: 50)
        configuration.recordPath = directory + "/record.ndjson"
        var logger = Logger(label: "salvo.loadtest.test.mock")
        logger.logLevel = .warning
        let server = try MockAPNsServer(
            configuration: configuration, listeners: [LoadTestMockListener(measurement: viaListener)], logger: logger)
        let addresses = try await server.start()
        var poolConfiguration = APNsConnectionPool.Configuration()
        poolConfiguration.connectionCount = 1
        poolConfiguration.connection.transport = .plaintext
        let credential = try APNsTokenCredential(
            keyID: "ABCDE12345", teamID: "TEAM123456", privateKey: P256.Signing.PrivateKey())
        let pool = try APNsConnectionPool(
            credential: .token(credential),
            environment: .custom(host: "127.0.0.1", port: addresses.port, behavesAs: .production),
            configuration: poolConfiguration, eventLoop: MultiThreadedEventLoopGroup.singleton.next())
        var tailer = LoadTestRecordTailer(path: configuration.recordPath!, measurement: viaRecord)
        tailer.pollInterval = .milliseconds(50)
        let tailing = Task { [tailer] in await tailer.run() }

        var accepted = 0
        do {
            let warmUp = try APNsRequest(
                token: DeviceToken(hex: String(repeating: "cd", count: 32)), topic: "com.example.app", pushType: .alert,
                payload: ByteBuffer(string: #"{"aps":{"alert":"warm-up"}}"#))
            #expect(await pool.send(warmUp).isAccepted)
            let start = Int64(Date().timeIntervalSince1970 * 1000) + 100
            viaListener.begin(atMilliseconds: start)
            viaRecord.begin(atMilliseconds: start)
            accepted = try await Self.sendOnSchedule(
                scenario, start: start, pool: pool, measurements: [viaListener, viaRecord])
            server.flushListeners()
            for _ in 0..<100 where viaRecord.snapshot().observations.deliveredTotal < 50 {
                try await Task.sleep(for: .milliseconds(50))
            }
        } catch {
            tailing.cancel()
            await pool.shutdown()
            await server.shutdown()
            throw error
        }
        tailing.cancel()
        await tailing.value
        await pool.shutdown()
        await server.shutdown()

        #expect(accepted == 50)
        let listener = viaListener.snapshot()
        #expect(listener.observations.deliveredTotal == 50)
        #expect(listener.observations.unknownDeliveries == 1, "the warm-up notification")
        #expect(listener.latency.p50 >= 50 && listener.latency.p50 <= 90, "p50 \(listener.latency.p50) ms")
        let record = viaRecord.snapshot()
        #expect(record.observations.deliveredTotal == 50)
        #expect(
            record.latency.p50 + 45 <= listener.latency.p50,
            "record \(record.latency.p50) ms, listener \(listener.latency.p50) ms")
    }

    /// Sends every job's notification at its scheduled wall-clock time (open loop: one task per
    /// notification, nobody waits for an earlier answer). Returns how many were accepted.
    private static func sendOnSchedule(
        _ scenario: LoadTestScenario, start: Int64, pool: APNsConnectionPool, measurements: [LoadTestMeasurement]
    ) async throws -> Int {
        var factory = LoadTestJobFactory(scenario: scenario, runID: "lt-lat", startMilliseconds: start)
        var jobs: [LoadTestJob] = []
        for arrival in LoadTestSchedule(phases: scenario.phases) { jobs += try factory.jobs(for: arrival) }
        for job in jobs { for measurement in measurements { measurement.register(job) } }
        let topic: APNsTopic = "com.example.app"
        return try await withThrowingTaskGroup(of: Bool.self) { group in
            for job in jobs {
                let token = job.tokens[0].token
                let request = try APNsRequest(
                    token: token, topic: topic, pushType: .alert,
                    apnsID: APNsID.deterministic(jobID: job.id, token: token),
                    payload: ByteBuffer(string: #"{"aps":{"alert":"latency"}}"#))
                let wait = job.scheduledAtMilliseconds - Int64(Date().timeIntervalSince1970 * 1000)
                if wait > 0 { try await Task.sleep(for: .milliseconds(wait)) }
                group.addTask { await pool.send(request).isAccepted }
            }
            var accepted = 0
            for try await isAccepted in group where isAccepted { accepted += 1 }
            return accepted
        }
    }
}
