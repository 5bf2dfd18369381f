import Foundation
import SalvoAPNs
import SalvoLoadTest
import SalvoMockAPNs
import Testing

@Suite("Reports: text, JSON, self-contained HTML")
struct LoadTestReportTests {
    /// A measurement with deliveries over three seconds, one missing notification and one dead letter.
    static func measured() -> LoadTestMeasurement {
        let measurement = LoadTestMeasurement(runID: "lt-r", startMilliseconds: 0)
        for index in 0..<30 {
            let id = "lt-r-\(index)"
            measurement.register(TestJobs.job(id: id, scheduledAt: Int64(index) * 100, tokens: [(index, .valid)]))
            guard index > 0 else { continue }
            measurement.observeRecord(
                apnsID: APNsID.deterministic(jobID: id, token: TestJobs.token(index)),
                receivedAtMilliseconds: Int64(index) * 100 + 20 + Int64(index % 5))
        }
        measurement.register(
            TestJobs.job(id: "lt-r-bad", scheduledAt: 0, tokens: [], deadLetterReason: "malformed_json"))
        return measurement
    }

    static func report(_ measurement: LoadTestMeasurement, checksTopics: Bool = true) -> LoadTestReport {
        let snapshot = measurement.snapshot()
        return LoadTestReport(
            scenario: "report-test", mockScenario: "healthy.yaml", runID: measurement.runID, startMilliseconds: 0,
            plannedSeconds: 3, elapsedSeconds: 3.5, completed: false, snapshot: snapshot,
            timeline: measurement.timeline(),
            bucketSeconds: measurement.bucketSeconds, distribution: measurement.distribution(),
            consumerLag: [.init(second: 0, lag: 10), .init(second: 1, lag: 0)], mockStats: nil,
            missingFeedbackSample: [],
            problems: LoadTestReport.problems(
                of: snapshot, mockStats: nil, checksFeedback: checksTopics, checksDeadLetters: checksTopics))
    }

    @Test("problems name what is missing; the text summary fits a screen and says FAIL")
    func problemsAndText() {
        let report = Self.report(Self.measured())
        #expect(report.problems.contains("priority: 1 of 30 notifications not delivered"))
        #expect(report.problems.contains("dead letters malformed_json: 0 seen, 1 expected"))
        #expect(!report.passed)
        let text = LoadTestTextReport.render(report)
        #expect(text.contains("RESULT: FAIL"))
        #expect(text.contains("delivered priority  29 / 30 expected"))
        #expect(text.split(separator: "\n").count <= 40)
        // Without topic readers, feedback and dead letters are not judged.
        #expect(
            Self.report(Self.measured(), checksTopics: false).problems == [
                "priority: 1 of 30 notifications not delivered"
            ])
    }

    @Test("the HTML page has its three plots inline and no URL at all")
    func html() {
        let html = LoadTestHTMLReport.render(Self.report(Self.measured()))
        #expect(!html.contains("http://"))
        #expect(!html.contains("https://"))
        #expect(!html.contains("<script"))
        #expect(!html.contains("<link"))
        #expect(html.components(separatedBy: "<svg").count - 1 == 4, "throughput, latency over time, distribution, lag")
        #expect(html.contains("<polyline"))
        #expect(html.contains("Latency distribution"))
    }

    @Test("the JSON report round-trips, and the writer puts all three files in the directory")
    func jsonAndFiles() throws {
        let report = Self.report(Self.measured())
        let directory = try TestScenarios.temporaryDirectory()
        defer { TestScenarios.remove(directory) }
        let paths = try LoadTestReportWriter.write(report, to: directory + "/out")
        #expect(paths.map { ($0 as NSString).lastPathComponent } == ["summary.txt", "report.json", "report.html"])
        let decoded = try JSONDecoder().decode(
            LoadTestReport.self, from: Data(contentsOf: URL(fileURLWithPath: paths[1])))
        #expect(decoded == report)
        #expect(decoded.snapshot.latency.count == 29)
        #expect(decoded.distribution.map(\.percentile) == LoadTestReport.distributionPercentiles)
    }
}
