import Foundation
import SalvoTestSupport

/// One look at a worker's operations listener, as a prober sees it: the HTTP status of
/// `/health/live`, `/health/ready` and `/metrics` (0 when the connection failed), and the metrics
/// text, from one `curl` run (an independent client) over the three URLs.
struct OperationsPoll: CustomStringConvertible {
    /// When the poll started, from the moment the test chose (a signal, say).
    var startedAfter: Duration
    var live: Int
    var ready: Int
    var metrics: Int
    var metricsText: String

    /// Whether the listener answered at all.
    var connected: Bool { live != 0 || ready != 0 || metrics != 0 }

    /// Whether all three requests were answered (a listener closing mid-poll answers only the first).
    var complete: Bool { live != 0 && ready != 0 && metrics != 0 }

    var description: String {
        "\(startedAfter.milliseconds) ms: live \(live), ready \(ready), metrics \(metrics)"
    }

    /// Polls `address` (`http://127.0.0.1:PORT`) once.
    static func take(_ address: String, since origin: ContinuousClock.Instant) async throws -> OperationsPoll {
        let started = origin.duration(to: .now)
        let metricsFile = FileManager.default.temporaryDirectory.appendingPathComponent(
            "salvo-metrics-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: metricsFile) }
        // One output file per URL, in order; `-w` prints each transfer's status (000: no connection).
        let result = try await ExternalProcess.run(
            URL(fileURLWithPath: "/usr/bin/curl"),
            [
                "-s", "--max-time", "2", "-w", "%{http_code}\n",
                "-o", "/dev/null", "\(address)/health/live",
                "-o", "/dev/null", "\(address)/health/ready",
                "-o", metricsFile.path, "\(address)/metrics",
            ],
            timeout: .seconds(10))
        let codes = result.stdoutText.split(separator: "\n").map { Int($0) ?? 0 }
        guard codes.count == 3 else {
            throw TestFailure("curl printed \(codes.count) statuses: \(result.stdoutText) \(result.stderr)")
        }
        return OperationsPoll(
            startedAfter: started, live: codes[0], ready: codes[1], metrics: codes[2],
            metricsText: (try? String(contentsOf: metricsFile, encoding: .utf8)) ?? "")
    }
}

extension Duration {
    /// Whole milliseconds, for messages.
    var milliseconds: Int64 { components.seconds * 1_000 + components.attoseconds / 1_000_000_000_000_000 }
}
