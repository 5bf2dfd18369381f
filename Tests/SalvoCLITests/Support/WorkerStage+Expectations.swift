import Foundation
import SalvoTestSupport
import Testing

extension WorkerStage {
    /// The feedback topic holds one event per predicted dead token, with its predicted reason.
    func expectFeedback(equals expected: [String: String], allowDuplicates: Bool = false) async throws {
        var events: [(key: String, value: String)] = []
        _ = try await waitUntil(timeout: .seconds(60)) {
            events = try await self.messages(of: self.feedbackTopic)
            return Set(events.map(\.key)).count >= expected.count
        }
        var seen: [String: String] = [:]
        var repeats = 0
        for event in events {
            let object = try JSONSerialization.jsonObject(with: Data(event.value.utf8)) as? [String: Any]
            let reason = object?["reason"] as? String
            #expect(object?["token"] as? String == event.key)
            if seen[event.key] != nil { repeats += 1 }
            seen[event.key] = reason
        }
        let wrong = expected.filter { seen[$0.key] != $0.value }.count + seen.keys.filter { expected[$0] == nil }.count
        #expect(
            wrong == 0,
            "feedback differs from the prediction for \(wrong) tokens: \(seen.count) tokens with events, \(expected.count) dead tokens"
        )
        if !allowDuplicates { #expect(repeats == 0) }
    }

    /// The dead-letter topic's records: `salvo-reason` header and key of each.
    func deadLetters() async throws -> [(reason: String, key: String)] {
        let result = try await cluster.read(deadLetterTopic, format: "%k\t%h\n")
        guard result.status == 0 else { throw TestFailure("kcat could not read \(deadLetterTopic): \(result.stderr)") }
        return result.stdoutText.split(separator: "\n").map { line in
            let parts = line.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
            let headers = parts.count > 1 ? parts[1] : ""
            let reason = headers.firstMatch(of: /salvo-reason=([a-z_]+)/).map { String($0.1) } ?? ""
            return (reason, String(parts[0]))
        }
    }

    /// A worker's `/metrics` text, from the operations address it printed at start.
    func metrics(of worker: BackgroundProcess) async throws -> String {
        let address = try await operationsAddress(of: worker)
        let result = try await ExternalProcess.run(
            URL(fileURLWithPath: "/usr/bin/curl"), ["-sf", "\(address)/metrics"], timeout: .seconds(10))
        return result.stdoutText
    }

    /// `http://127.0.0.1:PORT` of a worker's operations listener, as it printed it at start.
    func operationsAddress(of worker: BackgroundProcess) async throws -> String {
        let line = try await worker.waitForOutput(containing: "operations on")
        guard let match = line.firstMatch(of: /http:\/\/[0-9.]+:\d+/) else {
            throw TestFailure("no address in \(line)")
        }
        return String(match.0)
    }
}

func percentile(_ sorted: [Int64], _ fraction: Double) -> Int64 {
    guard !sorted.isEmpty else { return 0 }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)]
}

/// Polls `condition` every 250 ms (or `every`) until it holds or `timeout` passes; returns
/// whether it held.
@discardableResult
func waitUntil(
    timeout: Duration, every interval: Duration = .milliseconds(250), _ condition: () async throws -> Bool
) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: interval)
    }
    return try await condition()
}
