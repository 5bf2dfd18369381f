import Foundation
import SalvoTestSupport

/// `salvo loadtest` against a stage: the scenario's header and topics are the stage's, and the
/// run observes the stage's mock.
extension WorkerStage {
    /// Writes `load-<name>.yaml`: kind, name, app, drain time and the stage's topics (plus
    /// `extraTopics`, YAML lines indented by two), then `body` (phases, mix, control, objectives).
    func loadScenario(name: String, drainSeconds: Int = 60, extraTopics: [String] = [], body: String) throws -> URL {
        let scenario = directory.appendingPathComponent("load-\(name).yaml")
        let topics =
            [
                "priority: \(priorityTopic)", "campaign: \(jobsTopic)", "feedback: \(feedbackTopic)",
                "dlq: \(deadLetterTopic)",
            ] + extraTopics
        let header = """
            kind: load
            name: \(name)
            app: \(Self.app)
            drain_seconds: \(drainSeconds)
            topics:

            """
        try (header + topics.map { "  \($0)\n" }.joined() + body).write(to: scenario, atomically: true, encoding: .utf8)
        return scenario
    }

    /// Runs `salvo loadtest` on `scenario` with its reports in `report-<name>`; `observe` is how
    /// the run sees deliveries (default: the stage's mock admin listener).
    func runLoadTest(
        _ scenario: URL, name: String, observe: [String]? = nil, timeout: Duration = .seconds(120)
    ) async throws -> (result: ExternalProcess.Result, reports: URL) {
        let reports = directory.appendingPathComponent("report-\(name)")
        let result = try await CommandRunner.salvo(
            ["loadtest", "--scenario", scenario.path, "--report-dir", reports.path] + cluster.connectionArguments
                + (observe ?? ["--mock-admin", "http://127.0.0.1:\(mockAdminPort)"]),
            timeout: timeout)
        return (result, reports)
    }
}
