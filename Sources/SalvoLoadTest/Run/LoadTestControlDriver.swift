import Logging
import SalvoKafka
import SalvoWorker
import Synchronization

/// Produces the scenario's campaign-control commands (``LoadTestScenario/Control``) when their
/// triggers are reached, with the worker's own record codec (`CampaignCommand`), and keeps when
/// Kafka acknowledged each: the instant the report measures "after the cancel" from.
final class LoadTestControlDriver: Sendable {
    private let scenario: LoadTestScenario
    private let runID: String
    private let producer: KafkaProducer
    private let measurement: LoadTestMeasurement
    private let plan: LoadTestPlan
    private let logger: Logger
    /// Wall-clock ms of each action's acknowledgement, nil until produced.
    private let produced: Mutex<[Int64?]>
    /// Ms from handing each command to the producer to its acknowledgement.
    private let acknowledgeDelays: Mutex<[Int64?]>
    let progress: LoadTestCampaignProgressReader?

    init(
        scenario: LoadTestScenario, runID: String, producer: KafkaProducer, measurement: LoadTestMeasurement,
        plan: LoadTestPlan,
        progress: LoadTestCampaignProgressReader?, logger: Logger
    ) {
        self.scenario = scenario
        self.runID = runID
        self.producer = producer
        self.measurement = measurement
        self.plan = plan
        self.progress = progress
        self.logger = logger
        self.produced = Mutex(Array(repeating: nil, count: scenario.control.count))
        self.acknowledgeDelays = Mutex(Array(repeating: nil, count: scenario.control.count))
    }

    /// Produces the actions in the order given, each at its trigger; returns when all are
    /// produced or the task is cancelled.
    func run(start: ContinuousClock.Instant, clock: ContinuousClock) async {
        for (index, control) in scenario.control.enumerated() {
            guard await reach(control.at, campaign: control.campaign, start: start, clock: clock) else { return }
            let command = CampaignCommand(
                campaignID: campaignID(control), action: Self.action(control.action), by: "salvo loadtest",
                reason: "scenario \(scenario.name), control[\(index)] at \(control.atText)", at: .now())
            let sentAt = LoadTestClock.nowMilliseconds()
            do {
                _ = try await producer.send(
                    KafkaProducerMessage(
                        topic: scenario.topics.control, key: command.key, value: command.encodedValue()))
            } catch {
                logger.error(
                    "control[\(index)] \(control.action.rawValue) of \(command.campaignID) not produced: \(error)")
                continue
            }
            let now = LoadTestClock.nowMilliseconds()
            produced.withLock { $0[index] = now }
            acknowledgeDelays.withLock { $0[index] = now - sentAt }
            if control.action == .cancel { measurement.markCancelled(control.campaign) }
            logger.notice(
                "control[\(index)]: \(control.action.rawValue) of campaign \(command.campaignID) produced to \(scenario.topics.control)"
            )
        }
    }

    /// Waits for a trigger; false when cancelled first.
    private func reach(
        _ trigger: LoadTestScenario.Control.Trigger, campaign: String, start: ContinuousClock.Instant,
        clock: ContinuousClock
    ) async -> Bool {
        switch trigger {
        case .seconds(let seconds):
            return (try? await clock.sleep(until: start.advanced(by: .milliseconds(Int64(seconds * 1000))))) != nil
        case .share(let share):
            let wanted = Int((Double(plan.campaignNotifications[campaign] ?? 0) * share).rounded(.up))
            while measurement.delivered(campaign: campaign) < wanted {
                guard (try? await Task.sleep(for: .milliseconds(20))) != nil else { return false }
            }
            return !Task.isCancelled
        }
    }

    /// Whether the run may end as far as control goes: every action produced and, for each
    /// cancel, the grace window watched twice over and (when progress is read) every
    /// notification of the campaign finished by some worker.
    func isSettled(nowMilliseconds: Int64) -> Bool {
        let produced = produced.withLock { $0 }
        for (control, at) in zip(scenario.control, produced) {
            guard let at else { return false }
            guard control.action == .cancel else { continue }
            if nowMilliseconds < at + 2 * LoadTestControlResult.graceMilliseconds { return false }
            if let progress,
                (progress.progress(of: campaignID(control))?.finished ?? 0)
                    < Int64(measurement.campaign(control.campaign).notifications)
            {
                return false
            }
        }
        return true
    }

    /// One result per action, in the scenario's order.
    func results() -> [LoadTestControlResult] {
        let produced = produced.withLock { $0 }
        let delays = acknowledgeDelays.withLock { $0 }
        return scenario.control.enumerated().map { index, control in
            // A pause's window ends at the next resume of the same campaign.
            let resume = scenario.control.indices.first { later in
                later > index && scenario.control[later].action == .resume
                    && scenario.control[later].campaign == control.campaign
            }
            var result = LoadTestControlResult.make(
                control, campaignID: campaignID(control), producedAt: produced[index],
                windowEnd: control.action == .pause ? resume.flatMap { produced[$0] } : nil,
                startMilliseconds: measurement.startMilliseconds, campaign: measurement.campaign(control.campaign),
                progress: progress?.progress(of: campaignID(control)))
            result.acknowledgedAfterMilliseconds = delays[index]
            return result
        }
    }

    private func campaignID(_ control: LoadTestScenario.Control) -> String {
        LoadTestScenario.Campaign.campaignID(name: control.campaign, runID: runID)
    }

    static func action(_ action: LoadTestScenario.Control.Action) -> CampaignCommand.Action {
        switch action {
        case .cancel: return .cancel
        case .pause: return .pause
        case .resume: return .resume
        }
    }
}
