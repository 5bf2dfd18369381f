import Foundation
import SalvoAPNs
import SalvoLoadTest
import SalvoMockAPNs
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The mock's `GET /deliveries` and the poller that reads it: a load test in another container or
/// pod sees the same record lines as one tailing the file.
@Suite("Deliveries over the mock's admin listener", .serialized)
struct LoadTestDeliveriesTests {
    /// A mock with an admin listener and a record file the test writes itself (the mock writes to
    /// it only when it accepts a push, and none is sent here).
    static func withMock(record: Bool = true, _ body: (String, String) async throws -> Void) async throws {
        let directory = try TestScenarios.temporaryDirectory()
        defer { TestScenarios.remove(directory) }
        var configuration = MockAPNsServer.Configuration()
        configuration.adminHost = "127.0.0.1"
        configuration.recordPath = record ? directory + "/record.ndjson" : nil
        let server = try MockAPNsServer(configuration: configuration)
        let addresses = try await server.start()
        do {
            try await body("http://\(try #require(addresses.adminEndpoint))", directory + "/record.ndjson")
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }

    static func append(_ text: String, to path: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(text.utf8))
        try handle.close()
    }

    static func get(_ url: String) async throws -> (status: Int, next: String?, body: String) {
        let (data, response) = try await URLSession.shared.data(from: URL(string: url)!)
        let http = try #require(response as? HTTPURLResponse)
        return (
            http.statusCode, http.value(forHTTPHeaderField: "salvo-next-offset"), String(decoding: data, as: UTF8.self)
        )
    }

    /// Registers `count` one-token jobs scheduled at 1,000 ms; returns their record lines (received at 1,010 + n).
    static func lines(_ count: Int, measurement: LoadTestMeasurement) -> [String] {
        (0..<count).map { index in
            measurement.register(TestJobs.job(id: "lt-d-\(index)", scheduledAt: 1_000, tokens: [(index, .valid)]))
            return LoadTestRecordTailerTests.line(
                APNsID.deterministic(jobID: "lt-d-\(index)", token: TestJobs.token(index)), at: 1_010 + Int64(index))
        }
    }

    @Test("pages hold whole lines up to max_bytes, salvo-next-offset continues them; bad queries 400, past the end 416")
    func pages() async throws {
        try await Self.withMock { admin, path in
            let lines = Self.lines(40, measurement: LoadTestMeasurement(runID: "lt-d", startMilliseconds: 0))
            let whole = lines.joined()
            try Self.append(whole + String(lines[0].prefix(50)), to: path)  // and half a line still being written

            let first = try await Self.get("\(admin)/deliveries?max_bytes=4096")
            #expect(first.status == 200)
            #expect(first.body.utf8.count <= 4096 && first.body.hasSuffix("\n") && whole.hasPrefix(first.body))
            var offset = try #require(first.next.flatMap(Int.init))
            #expect(offset == first.body.utf8.count)
            var read = first.body
            while offset < whole.utf8.count {
                let page = try await Self.get("\(admin)/deliveries?offset=\(offset)&max_bytes=4096")
                #expect(page.status == 200 && !page.body.isEmpty)
                read += page.body
                offset = try #require(page.next.flatMap(Int.init))
            }
            #expect(read == whole, "every line once, in order; the half line is held back")
            let end = try await Self.get("\(admin)/deliveries?offset=\(offset)")
            #expect(end.status == 200 && end.body.isEmpty && end.next == String(offset))

            #expect(try await Self.get("\(admin)/deliveries?offset=\(offset + 10_000)").status == 416)
            for query in [
                "offset=-1", "offset=abc", "offset=", "offset=1e3", "max_bytes=1", "max_bytes=99999999999",
                "max_bytes=4k",
            ] {
                #expect(try await Self.get("\(admin)/deliveries?\(query)").status == 400, "\(query)")
            }
        }
        try await Self.withMock(record: false) { admin, _ in
            let answer = try await Self.get("\(admin)/deliveries")
            #expect(answer.status == 404 && answer.body.contains("--record"))
        }
    }

    @Test("the poller feeds every line once, across pages and a line finished later, and reads the rest when cancelled")
    func poller() async throws {
        try await Self.withMock { admin, path in
            let measurement = LoadTestMeasurement(runID: "lt-d", startMilliseconds: 0)
            let lines = Self.lines(60, measurement: measurement)
            try Self.append(lines[0..<50].joined() + String(lines[50].prefix(30)), to: path)
            var poller = LoadTestDeliveriesPoller(adminURL: admin + "/", measurement: measurement)
            poller.pageBytes = 4096
            poller.pollInterval = .milliseconds(20)
            let task = Task { [poller] in await poller.run() }
            for _ in 0..<500 where measurement.snapshot().observations.deliveredTotal < 50 {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(measurement.snapshot().observations.deliveredTotal == 50)

            try Self.append(String(lines[50].dropFirst(30)) + lines[51...].joined(), to: path)
            task.cancel()
            await task.value
            let snapshot = measurement.snapshot()
            #expect(snapshot.observations.deliveredTotal == 60, "the last lines are read after cancellation")
            #expect(snapshot.observations.duplicateDeliveries == 0)
            #expect(snapshot.latency.max == 69)
        }
    }
}
