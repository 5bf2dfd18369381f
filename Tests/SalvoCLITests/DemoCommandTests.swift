import Foundation
import SalvoKafka
import SalvoTestSupport
import Testing

/// `salvo demo` end to end, as `make demo` runs it but scaled down for a debug build: the
/// summary, the report files and the exit status must all tell the same story.
///
/// At `--scale 0.02` the built-in load is 20 campaign jobs of 200 tokens and 10 per-user
/// pushes/s for 10 s, 5 of them broken: 4,095 notifications; beside them the campaign "flash",
/// 10 jobs of 40 tokens, cancelled at 30 % (the summary's table leaves it out, its own lines show it).
@Suite("salvo demo", .serialized)
struct DemoCommandTests {
    static let notifications = 20 * 200 + 100 - 5
    static let brokenJobs = 5
    static let cancelledTokens = 10 * 40

    @Test(
        "on the embedded cluster: exit 0, summary = expectations = mock /stats, self-contained HTML, report.json counts"
    )
    func embeddedCluster() async throws {
        try await runDemo(extraArguments: [])
    }

    @Test("on the test broker (--brokers): the same, and the demo's topics are deleted afterwards")
    func realBroker() async throws {
        try await withCLITestCluster { cluster in
            let stdout = try await runDemo(extraArguments: ["--brokers", cluster.brokers])
            let prefix = try #require(
                stdout.firstMatch(of: /topics (salvo-demo-[0-9a-z]+)\.\*/)?.1, "no topic prefix in:\n\(stdout)")
            let left = try await cluster.admin.topics().map(\.name).filter { $0.hasPrefix(String(prefix) + ".") }
            #expect(left.isEmpty, "the demo left its topics behind: \(left)")
        }
    }

    /// Runs the demo at scale 0.02 and checks its output; returns stdout.
    @discardableResult
    private func runDemo(extraArguments: [String]) async throws -> String {
        let directory = try ExternalProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let reportDirectory = directory.appendingPathComponent("report")
        let result = try await CommandRunner.salvo(
            ["demo", "--scale", "0.02", "--report-dir", reportDirectory.path] + extraArguments, timeout: .seconds(110))
        let stdout = result.stdoutText
        #expect(
            result.status == 0, "exit \(result.status)\nstdout:\n\(stdout)\nstderr:\n\(result.stderr.suffix(3_000))")
        #expect(stdout.contains("salvo demo: PASS"))

        // The summary's columns: expected, seen by the load generator, worker, mock /stats.
        let delivered = try Self.columns(of: "delivered", in: stdout)
        let feedback = try Self.columns(of: "feedback events", in: stdout)
        let deadLetters = try Self.columns(of: "dead letters (DLQ)", in: stdout)
        #expect(delivered.count == 4 && Set(delivered).count == 1, "delivered row: \(delivered)")
        #expect(feedback.count == 4 && Set(feedback).count == 1, "feedback row: \(feedback)")
        #expect(deadLetters == [Self.brokenJobs, Self.brokenJobs, Self.brokenJobs], "dead-letter row: \(deadLetters)")
        #expect(delivered[0] + feedback[0] == Self.notifications)
        // 1 % Unregistered + 0.5 % BadDeviceToken, counted exactly over all 4,495 tokens (66), of
        // which the flash campaign's 400 hold a share: about 1.5 % of 4,095 stay in the table.
        #expect((55...66).contains(feedback[0]), "feedback \(feedback[0])")

        // The cancelled campaign: cancelled after 30 % of it, nothing from 1 s after the cancel,
        // and the worker's sent + cancelled is its total.
        let cancel = try #require(
            stdout.firstMatch(
                of:
                    /cancel  campaign flash \(400 tokens\) cancelled at 30%, [0-9.]+ s into the run: sent (\d+), cancelled (\d+) \(sent \+ cancelled = (\d+)\)/
            ),
            "no cancel line in:\n\(stdout)")
        let sent = try #require(Int(cancel.1))
        #expect(
            sent >= Self.cancelledTokens * 3 / 10 - Self.cancelledTokens * 3 / 200 && sent < Self.cancelledTokens,
            "sent \(sent)")
        #expect(Int(cancel.3) == Self.cancelledTokens)
        #expect(stdout.contains(", 0 from 1 s after it"), "\(stdout)")

        let html = try String(contentsOf: reportDirectory.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(html.contains("<svg"))
        #expect(!html.contains("http://") && !html.contains("https://"), "the HTML report references a URL")

        let json = try JSONSerialization.jsonObject(
            with: Data(contentsOf: reportDirectory.appendingPathComponent("report.json")))
        let report = try #require(json as? [String: Any])
        let snapshot = try #require(report["snapshot"] as? [String: Any])
        let expectations = try #require(snapshot["expectations"] as? [String: Any])
        let observations = try #require(snapshot["observations"] as? [String: Any])
        let mockStats = try #require(report["mockStats"] as? [String: Any])
        // The mock's totals include what the cancelled campaign sent before the cancel.
        let control = try #require((report["control"] as? [[String: Any]])?.first)
        let progress = try #require(control["progress"] as? [String: Any])
        let flashAccepted = try #require(progress["accepted"] as? Int)
        let flashFeedback = Self.total(progress["feedback"])
        #expect(
            flashAccepted == (control["deliveredBefore"] as? Int ?? -1) + (control["deliveredAfter"] as? Int ?? -1),
            "worker and mock agree on the flash campaign")
        #expect(Self.total(expectations["delivered"]) == delivered[0])
        #expect(Self.total(observations["delivered"]) == delivered[0])
        #expect(mockStats["accepted"] as? Int == delivered[0] + flashAccepted)
        #expect(Self.total(expectations["feedback"]) == feedback[0])
        #expect(Self.total(observations["feedback"]) == feedback[0])
        #expect(mockStats["rejected_total"] as? Int == feedback[0] + flashFeedback)
        #expect(Self.total(observations["deadLetters"]) == Self.brokenJobs)
        #expect((report["problems"] as? [Any])?.isEmpty == true, "report problems: \(report["problems"] ?? "none")")
        #expect(control["deliveredAfterGrace"] as? Int == 0)
        #expect((progress["sent"] as? Int ?? 0) + (progress["cancelled"] as? Int ?? 0) == Self.cancelledTokens)
        #expect(FileManager.default.fileExists(atPath: reportDirectory.appendingPathComponent("demo-summary.txt").path))
        return stdout
    }

    /// The numbers of the summary row labelled `label`.
    private static func columns(of label: String, in text: String) throws -> [Int] {
        let line = try #require(
            text.split(separator: "\n").first { $0.hasPrefix("  " + label + "  ") }, "no \"\(label)\" row in:\n\(text)")
        return line.dropFirst(2 + label.count).split(separator: " ").compactMap { Int($0) }
    }

    private static func total(_ counts: Any?) -> Int {
        ((counts as? [String: Int]) ?? [:]).values.reduce(0, +)
    }
}
