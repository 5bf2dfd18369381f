import SalvoAPNs
import SalvoLoadTest
import SalvoMockAPNs
import Testing

@Suite("Measurement: latency, duplicates, feedback, dead letters")
struct LoadTestMeasurementTests {
    @Test("latency is the record's time minus the job's scheduled time, per lane and overall")
    func latency() {
        let measurement = LoadTestMeasurement(runID: "lt-m", startMilliseconds: 10_000)
        let perUser = TestJobs.job(id: "lt-m-0", scheduledAt: 10_000, tokens: [(1, .valid)])
        let campaign = TestJobs.job(
            id: "lt-m-1", lane: .campaign, scheduledAt: 10_500, tokens: (2...5).map { ($0, .valid) })
        measurement.register(perUser)
        measurement.register(campaign)
        measurement.observeRecord(
            apnsID: APNsID.deterministic(jobID: "lt-m-0", token: TestJobs.token(1)), receivedAtMilliseconds: 10_040)
        for (offset, number) in (2...5).enumerated() {
            measurement.observeRecord(
                apnsID: APNsID.deterministic(jobID: "lt-m-1", token: TestJobs.token(number)),
                receivedAtMilliseconds: 10_500 + 100 * Int64(offset + 1))
        }
        let snapshot = measurement.snapshot()
        #expect(snapshot.lanes["priority"]?.p50 == 40)
        #expect(snapshot.lanes["priority"]?.count == 1)
        #expect(snapshot.lanes["campaign"]?.count == 4)
        #expect(snapshot.lanes["campaign"]?.max == 400)
        #expect(snapshot.latency.count == 5)
        #expect(snapshot.latency.p50 == 200)
        #expect(snapshot.observations.delivered == ["priority": 1, "campaign": 4])
        #expect(snapshot.expectations.delivered == ["priority": 1, "campaign": 4])
        #expect(snapshot.isComplete(checkingFeedback: true, checkingDeadLetters: true))
        let timeline = measurement.timeline()
        #expect(timeline.count == 1)
        #expect(timeline[0].deliveredPerSecond == 5)
    }

    @Test("a second record of an apns-id is a duplicate, a foreign one unknown, an early one counts as 0 ms")
    func duplicatesAndStrangers() {
        let measurement = LoadTestMeasurement(runID: "lt-d", startMilliseconds: 0)
        measurement.register(TestJobs.job(id: "lt-d-0", scheduledAt: 1_000, tokens: [(1, .valid), (2, .valid)]))
        let first = APNsID.deterministic(jobID: "lt-d-0", token: TestJobs.token(1))
        measurement.observeRecord(apnsID: first, receivedAtMilliseconds: 1_010)
        measurement.observeRecord(apnsID: first, receivedAtMilliseconds: 1_020)
        measurement.observeRecord(
            apnsID: APNsID.deterministic(jobID: "other", token: TestJobs.token(1)), receivedAtMilliseconds: 1_020)
        measurement.observeRecord(
            apnsID: APNsID.deterministic(jobID: "lt-d-0", token: TestJobs.token(2)), receivedAtMilliseconds: 900)
        let snapshot = measurement.snapshot()
        #expect(snapshot.observations.duplicateDeliveries == 1)
        #expect(snapshot.observations.unknownDeliveries == 1)
        #expect(snapshot.observations.negativeLatencies == 1)
        #expect(snapshot.latency.count == 2)
        #expect(measurement.distribution().first?.milliseconds == 0)
    }

    @Test("feedback is matched by token and reason; dead letters counted by reason; duplicates are not expected twice")
    func feedbackAndDeadLetters() {
        let measurement = LoadTestMeasurement(runID: "lt-f", startMilliseconds: 0)
        measurement.register(
            TestJobs.job(id: "lt-f-0", scheduledAt: 0, tokens: [(1, .unregistered), (2, .badDeviceToken), (3, .valid)]))
        measurement.register(
            TestJobs.job(
                id: "lt-f-0", scheduledAt: 0, tokens: [(1, .unregistered), (2, .badDeviceToken), (3, .valid)],
                duplicate: true))
        measurement.register(TestJobs.job(id: "lt-f-1", scheduledAt: 0, tokens: [], deadLetterReason: "unknown_app"))
        var snapshot = measurement.snapshot()
        #expect(snapshot.expectations.feedback == ["Unregistered": 1, "BadDeviceToken": 1])
        #expect(snapshot.expectations.deadLetters == ["unknown_app": 1])
        #expect(snapshot.expectations.duplicateJobs == 1 && snapshot.expectations.duplicateNotifications == 3)
        #expect(snapshot.expectations.delivered == ["priority": 1])
        #expect(!snapshot.isComplete(checkingFeedback: true, checkingDeadLetters: true))

        measurement.observeFeedback(token: TestJobs.token(1).hex.uppercased(), reason: "Unregistered")
        measurement.observeFeedback(token: TestJobs.token(1).hex, reason: "Unregistered")
        measurement.observeFeedback(token: TestJobs.token(2).hex, reason: "Unregistered")
        measurement.observeDeadLetter(reason: "unknown_app")
        snapshot = measurement.snapshot()
        #expect(snapshot.observations.feedback == ["Unregistered": 1])
        #expect(snapshot.observations.duplicateFeedback == 1)
        #expect(snapshot.observations.unexpectedFeedback == 1, "right token, wrong reason")
        #expect(snapshot.observations.deadLetters == ["unknown_app": 1])
    }
}
