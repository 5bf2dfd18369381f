import Foundation
import SalvoAPNs
import SalvoLoadTest
import SalvoMockAPNs
import Testing

@Suite("Record file tailing")
struct LoadTestRecordTailerTests {
    static func line(_ id: APNsID, at milliseconds: Int64) -> String {
        #"{"apns_id":"\#(id)","token":"abab","topic":"t","push_type":"alert","priority":10,"expiration":null,"#
            + #""collapse_id":null,"payload_sha256":"00","payload_bytes":2,"received_at_ms":\#(milliseconds),"connection":1}"#
            + "\n"
    }

    @Test("lines written in pieces are read once each, a partial line waits for its newline")
    func tail() async throws {
        let directory = try TestScenarios.temporaryDirectory()
        defer { TestScenarios.remove(directory) }
        let path = directory + "/record.ndjson"
        let measurement = LoadTestMeasurement(runID: "lt-t", startMilliseconds: 0)
        let ids = (0..<3).map { index -> APNsID in
            measurement.register(TestJobs.job(id: "lt-t-\(index)", scheduledAt: 1_000, tokens: [(index, .valid)]))
            return APNsID.deterministic(jobID: "lt-t-\(index)", token: TestJobs.token(index))
        }
        let text = Self.line(ids[0], at: 1_010) + Self.line(ids[1], at: 1_020) + Self.line(ids[2], at: 1_030)
        let cut = text.utf8.count - 40
        try Data(text.utf8.prefix(cut)).write(to: URL(fileURLWithPath: path))

        var tailer = LoadTestRecordTailer(path: path, measurement: measurement)
        tailer.pollInterval = .milliseconds(10)
        let task = Task { [tailer] in await tailer.run() }
        defer { task.cancel() }
        try await waitFor { measurement.snapshot().observations.deliveredTotal == 2 }
        #expect(measurement.snapshot().observations.deliveredTotal == 2, "the third line is incomplete")

        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(text.utf8.dropFirst(cut)))
        try handle.close()
        try await waitFor { measurement.snapshot().observations.deliveredTotal == 3 }
        task.cancel()
        await task.value
        let snapshot = measurement.snapshot()
        #expect(snapshot.observations.deliveredTotal == 3)
        #expect(snapshot.observations.duplicateDeliveries == 0, "nothing read twice")
        #expect(snapshot.latency.max == 30)
    }

    /// Polls `condition` for at most five seconds.
    private func waitFor(_ condition: () -> Bool) async throws {
        for _ in 0..<500 where !condition() {
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
