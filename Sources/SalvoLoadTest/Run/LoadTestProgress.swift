import Foundation

/// Live progress on stderr: once a second on a terminal, every five seconds otherwise (a CI log
/// or a redirected file wants a trace, not a ticker).
struct LoadTestProgress: Sendable {
    let measurement: LoadTestMeasurement
    let plan: LoadTestPlan

    func run() async {
        let interval = isatty(STDERR_FILENO) == 1 ? 1 : 5
        let start = ContinuousClock.now
        var lastSent = 0
        while (try? await Task.sleep(for: .seconds(interval))) != nil {
            let snapshot = measurement.snapshot()
            let sent = snapshot.expectations.notifications + snapshot.expectations.duplicateNotifications
            let elapsed = (ContinuousClock.now - start).components.seconds
            FileHandle.standardError.write(
                Data(
                    (Self.line(snapshot, plan: plan, elapsed: elapsed, rate: (sent - lastSent) / interval) + "\n").utf8)
            )
            lastSent = sent
        }
    }

    static func line(_ snapshot: LoadTestSnapshot, plan: LoadTestPlan, elapsed: Int64, rate: Int) -> String {
        let expected = snapshot.expectations
        let latency = snapshot.latency
        let jobs = expected.jobsProduced - expected.duplicateJobs
        return "loadtest \(elapsed)s: \(rate) notif/s, jobs \(jobs)/\(plan.jobs), "
            + "delivered \(snapshot.observations.deliveredTotal)/\(expected.deliveredTotal), "
            + "feedback \(snapshot.observations.feedbackTotal)/\(expected.feedbackTotal), "
            + "dlq \(snapshot.observations.deadLettersTotal)/\(expected.deadLettersTotal), "
            + "p50 \(latency.p50) ms, p99 \(latency.p99) ms, schedule lag max \(snapshot.scheduleLag.max) ms"
    }
}
