import Foundation
import SalvoAPNs
import SalvoMockAPNs
import Testing

@testable import SalvoLoadTest

/// The scenario's `control:` phase — reading and validating it, the schedule
/// of several campaigns side by side, the measurement without a cancelled campaign, and the
/// report's campaign-control section.
@Suite("Load scenario control phase")
struct LoadTestControlTests {
    static let yaml = """
        kind: load
        name: cancel
        topics: {control: t.control, campaigns: t.campaigns}
        phases:
          - duration_seconds: 10
            rate: 5
            campaigns:
              - {name: doomed, tokens_per_job: 100, every_seconds: 1}
              - {name: kept, tokens_per_job: 10, every_seconds: 4}
        control:
          - {at: 30%, action: pause, campaign: doomed}
          - {at: 6, action: resume, campaign: doomed}
          - {at: 8.5s, action: cancel, campaign: doomed}
        objectives: {max_sent_after_control: 0}
        """

    @Test("control actions, named campaigns, the control and progress topics and the objective are read")
    func parses() throws {
        let scenario = try LoadTestScenario.parse(Self.yaml)
        #expect(scenario.topics.control == "t.control" && scenario.topics.campaigns == "t.campaigns")
        #expect(scenario.phases[0].campaigns.map(\.name) == ["doomed", "kept"])
        #expect(
            scenario.control == [
                .init(at: .share(0.3), action: .pause, campaign: "doomed"),
                .init(at: .seconds(6), action: .resume, campaign: "doomed"),
                .init(at: .seconds(8.5), action: .cancel, campaign: "doomed"),
            ])
        #expect(scenario.objectives.maximumSentAfterControl == 0)
        #expect(scenario.scaled(by: 0.5).control[1].at == .seconds(3), "seconds scale with the phases, shares do not")
        #expect(scenario.scaled(by: 0.5).control[0].at == .share(0.3))
        #expect(
            LoadTestScenario().topics.control == "salvo.control"
                && LoadTestScenario().topics.campaigns == "salvo.campaigns")
    }

    @Test("every bad control action is reported at once, naming its index")
    func validation() {
        let bad = """
            kind: load
            phases:
              - duration_seconds: 10
                campaigns: [{name: a, tokens_per_job: 1, every_seconds: 1}, {name: "b c", tokens_per_job: 1, every_seconds: 1}]
            control:
              - {at: 100%, action: cancel, campaign: a}
              - {at: 11, action: pause, campaign: a}
              - {at: 5, action: cancel, campaign: nobody}
            """
        #expect {
            try LoadTestScenario.parse(bad)
        } throws: { error in
            let message = (error as? LoadTestError)?.description ?? ""
            return message.contains("control[0]: at must be a percentage above 0% and below 100%")
                && message.contains("control[1]: at must be within the phases (0…10 s)")
                && message.contains("control[2]: campaign nobody is not the name of a campaign of the phases (a, b c)")
                && message.contains("campaign.name \"b c\" must be 1–64 letters")
        }
        for (text, wanted) in [
            ("{at: 5, action: stop, campaign: a}", "action must be cancel, pause, resume, got stop"),
            ("{at: soon, action: cancel, campaign: a}", "at must be seconds (12) or a percentage (30%), got soon"),
            ("{at: 5, action: cancel, campaign: a, by: me}", "by"),
        ] {
            let yaml =
                "kind: load\nphases: [{duration_seconds: 10, campaign: {name: a, tokens_per_job: 1, every_seconds: 1}}]\ncontrol: [\(text)]\n"
            #expect(throws: LoadTestError.self) { try LoadTestScenario.parse(yaml) }
            let message = (try? LoadTestScenario.parse(yaml)).map { _ in "" } ?? Self.message(yaml)
            #expect(message.contains("control.[0]") || message.contains("control[0]"), "\(message)")
            #expect(message.contains(wanted), "\(message)")
        }
        let both =
            "kind: load\nphases: [{duration_seconds: 1, campaign: {tokens_per_job: 1, every_seconds: 1}, campaigns: []}]\n"
        #expect(Self.message(both).contains("give campaign (one) or campaigns (a list), not both"))
    }

    static func message(_ yaml: String) -> String {
        do {
            _ = try LoadTestScenario.parse(yaml)
            return ""
        } catch {
            return error.description
        }
    }

    @Test(
        "a phase's campaigns burst side by side, each job under its own campaign id, and the plan counts each campaign")
    func schedule() throws {
        let scenario = try LoadTestScenario.parse(Self.yaml)
        let campaignArrivals = LoadTestSchedule(phases: scenario.phases).filter { $0.lane == .campaign }
        #expect(campaignArrivals.filter { $0.campaign == "doomed" }.count == 10)
        #expect(
            campaignArrivals.filter { $0.campaign == "kept" }.map(\.offsetNanoseconds) == [
                0, 4_000_000_000, 8_000_000_000,
            ])
        #expect(LoadTestPlan(scenario: scenario).campaignNotifications == ["doomed": 1_000, "kept": 30])
        var factory = LoadTestJobFactory(scenario: scenario, runID: "lt-x", startMilliseconds: 0)
        let doomed = try factory.jobs(for: try #require(campaignArrivals.first))[0]
        #expect(doomed.campaign == "doomed")
        #expect(String(decoding: doomed.value, as: UTF8.self).contains(#""campaign_id":"lt-x-doomed""#))
    }

    @Test("a cancelled campaign leaves the expectations on both sides; what it delivered is kept for its own section")
    func cancelledCampaignExcluded() {
        let measurement = LoadTestMeasurement(runID: "lt-c", startMilliseconds: 0)
        var doomed = TestJobs.job(
            id: "lt-c-0", lane: .campaign, scheduledAt: 0, tokens: (0..<4).map { ($0, .valid) } + [(9, .unregistered)])
        doomed.campaign = "doomed"
        measurement.register(doomed)
        measurement.register(TestJobs.job(id: "lt-c-1", lane: .campaign, scheduledAt: 0, tokens: [(5, .valid)]))
        for (token, at) in [(0, Int64(100)), (1, 900), (2, 1_500)] {
            measurement.observeRecord(
                apnsID: APNsID.deterministic(jobID: "lt-c-0", token: TestJobs.token(token)), receivedAtMilliseconds: at)
        }
        measurement.observeRecord(
            apnsID: APNsID.deterministic(jobID: "lt-c-1", token: TestJobs.token(5)), receivedAtMilliseconds: 50)
        #expect(!measurement.snapshot().isComplete(checkingFeedback: true, checkingDeadLetters: true))
        measurement.markCancelled("doomed")
        let snapshot = measurement.snapshot()
        #expect(snapshot.expectations.delivered["campaign"] == 1 && snapshot.observations.delivered["campaign"] == 1)
        #expect(snapshot.expectations.feedbackTotal == 0)
        #expect(snapshot.isComplete(checkingFeedback: true, checkingDeadLetters: true))
        #expect(measurement.campaign("doomed").deliveredAt == [100, 900, 1_500])
        #expect(measurement.campaign("doomed").notifications == 5)

        let cancel = LoadTestScenario.Control(at: .share(0.3), action: .cancel, campaign: "doomed")
        let result = LoadTestControlResult.make(
            cancel, campaignID: "lt-c-doomed", producedAt: 400, windowEnd: nil, startMilliseconds: 0,
            campaign: measurement.campaign("doomed"),
            progress: .init(sent: 3, accepted: 3, cancelled: 2, finished: 5))
        #expect(result.deliveredBefore == 1 && result.deliveredAfter == 2)
        #expect(result.deliveredAfterGrace == 1, "1,500 ms is past the command (400 ms) + 1 s")
        #expect(result.lastDeliveryAfterMilliseconds == 1_100)
        #expect(result.problems.isEmpty)
        #expect(result.lines.joined(separator: "\n").contains("workers: sent 3 + cancelled 2 = 5 of 5"))

        let pause = LoadTestScenario.Control(at: .seconds(0.4), action: .pause, campaign: "doomed")
        let paused = LoadTestControlResult.make(
            pause, campaignID: "lt-c-doomed", producedAt: 400, windowEnd: 1_200, startMilliseconds: 0,
            campaign: measurement.campaign("doomed"),
            progress: nil)
        #expect(paused.deliveredAfterGrace == 0, "the delivery at 1,500 ms came after the resume at 1,200 ms")
        #expect(paused.lastDeliveryAfterMilliseconds == 500)
    }

    @Test("the report's control section: text and HTML, the objective, and the problems of a cancel")
    func report() {
        let measurement = LoadTestReportTests.measured()
        let snapshot = measurement.snapshot()
        let obeyed = LoadTestControlResult(
            action: .cancel, campaign: "doomed", campaignID: "lt-r-doomed", at: "30%",
            producedAtOffsetMilliseconds: 2_500, notifications: 100,
            deliveredBefore: 30, deliveredAfter: 4, deliveredAfterGrace: 0, lastDeliveryAfterMilliseconds: 180,
            progress: .init(sent: 34, accepted: 34, cancelled: 66, finished: 100))
        var leaky = obeyed
        leaky.deliveredAfterGrace = 3
        leaky.progress = .init(sent: 40, accepted: 40, cancelled: 50, finished: 90)
        var never = obeyed
        never.producedAtOffsetMilliseconds = nil
        #expect(obeyed.problems.isEmpty)
        #expect(leaky.problems == ["cancelled campaign doomed: sent 40 + cancelled 50 ≠ total 100"])
        #expect(never.problems == ["cancel of campaign doomed at 30% was never produced (its trigger was not reached)"])

        var objectives = LoadTestScenario.Objectives()
        objectives.maximumSentAfterControl = 0
        #expect(objectives.evaluate(snapshot, plannedSeconds: 3, control: [obeyed]).map(\.met) == [true])
        #expect(objectives.evaluate(snapshot, plannedSeconds: 3, control: [obeyed, leaky]).map(\.measured) == [3])
        #expect(
            objectives.evaluate(snapshot, plannedSeconds: 3, control: []).map(\.met) == [false],
            "nothing measured misses it")

        var report = LoadTestReportTests.report(measurement)
        report.control = [obeyed]
        let text = LoadTestTextReport.render(report)
        #expect(
            text.contains(
                "campaign control\n  cancel doomed (lt-r-doomed) at 30%: produced 2.5 s after the start, 30 of 100 delivered before it, 4 from it on"
            ))
        #expect(text.contains("after +1 s: 0 delivered (objective 0); last one 180 ms after the command"))
        #expect(text.contains("workers: sent 34 + cancelled 66 = 100 of 100"))
        let html = LoadTestHTMLReport.render(report)
        #expect(html.contains("<h2>Campaign control</h2>") && html.contains("<td>34 + 66 / 100</td>"))
        let decoded = try? JSONDecoder().decode(LoadTestReport.self, from: JSONEncoder().encode(report))
        #expect(decoded?.control == [obeyed])
    }
}
