/// One campaign-control action of the scenario and what the fleet made of it: when the command
/// was produced, what the mock recorded of the campaign after it, and (from the workers'
/// `salvo.campaigns` records) whether `sent + cancelled = total`.
public struct LoadTestControlResult: Sendable, Hashable, Codable {
    /// The workers' merged progress counters of the campaign at the end of the run.
    public struct Progress: Sendable, Hashable, Codable {
        public var sent: Int64
        public var accepted: Int64
        public var cancelled: Int64
        /// Notifications with a final outcome.
        public var finished: Int64
        /// APNs's rejections of the campaign's tokens, by reason.
        public var feedback: [String: Int64]

        public init(sent: Int64, accepted: Int64, cancelled: Int64, finished: Int64, feedback: [String: Int64] = [:]) {
            self.sent = sent
            self.accepted = accepted
            self.cancelled = cancelled
            self.finished = finished
            self.feedback = feedback
        }
    }

    /// How long after the command a notification may still go out: a command is in force
    /// fleet-wide within 1 s.
    public static let graceMilliseconds: Int64 = 1_000

    public var action: LoadTestScenario.Control.Action
    /// The campaign's name in the scenario and its campaign id in this run.
    public var campaign: String
    public var campaignID: String
    /// `at` as written: `30%` or `12 s`.
    public var at: String
    /// When Kafka acknowledged the command, ms after the schedule's start; nil when it was never
    /// produced (its trigger was not reached).
    public var producedAtOffsetMilliseconds: Int64?
    /// How long Kafka took to acknowledge the command after it was handed to the producer, ms
    /// (a producer's first record to a topic waits for the topic's metadata).
    public var acknowledgedAfterMilliseconds: Int64?
    /// The campaign's notifications in the run (its good jobs' tokens).
    public var notifications: Int
    /// First deliveries of the campaign the mock recorded before the command and from it on.
    public var deliveredBefore: Int
    public var deliveredAfter: Int
    /// Of those after, the ones recorded from ``graceMilliseconds`` after the command on (for a
    /// pause: until the next resume of the campaign). Should be 0; nil for a resume.
    public var deliveredAfterGrace: Int?
    /// The campaign's last delivery the mock recorded in that window, ms after the command; nil
    /// when it recorded none after the command.
    public var lastDeliveryAfterMilliseconds: Int64?
    /// The workers' counters, when the progress topic was read and had the campaign.
    public var progress: Progress?

    public init(
        action: LoadTestScenario.Control.Action, campaign: String, campaignID: String, at: String,
        producedAtOffsetMilliseconds: Int64?,
        notifications: Int, deliveredBefore: Int, deliveredAfter: Int, deliveredAfterGrace: Int?,
        lastDeliveryAfterMilliseconds: Int64?,
        progress: Progress?
    ) {
        self.action = action
        self.campaign = campaign
        self.campaignID = campaignID
        self.at = at
        self.producedAtOffsetMilliseconds = producedAtOffsetMilliseconds
        self.notifications = notifications
        self.deliveredBefore = deliveredBefore
        self.deliveredAfter = deliveredAfter
        self.deliveredAfterGrace = deliveredAfterGrace
        self.lastDeliveryAfterMilliseconds = lastDeliveryAfterMilliseconds
        self.progress = progress
    }

    /// Builds the result from the campaign's deliveries (wall-clock ms, sorted) and the command's
    /// produce time; `windowEnd` closes a pause's window at its resume (wall clock ms).
    static func make(
        _ control: LoadTestScenario.Control, campaignID: String, producedAt: Int64?, windowEnd: Int64?,
        startMilliseconds: Int64,
        campaign: LoadTestMeasurement.CampaignView, progress: Progress?
    ) -> LoadTestControlResult {
        var result = LoadTestControlResult(
            action: control.action, campaign: control.campaign, campaignID: campaignID, at: control.atText,
            producedAtOffsetMilliseconds: producedAt.map { $0 - startMilliseconds },
            notifications: campaign.notifications,
            deliveredBefore: campaign.deliveredAt.count, deliveredAfter: 0, deliveredAfterGrace: nil,
            lastDeliveryAfterMilliseconds: nil,
            progress: progress)
        guard let producedAt else { return result }
        let after = campaign.deliveredAt.filter { $0 >= producedAt }
        result.deliveredBefore = campaign.deliveredAt.count - after.count
        result.deliveredAfter = after.count
        guard control.action != .resume else { return result }
        let window = after.filter { windowEnd == nil || $0 < windowEnd! }
        result.deliveredAfterGrace = window.filter { $0 >= producedAt + graceMilliseconds }.count
        result.lastDeliveryAfterMilliseconds = window.last.map { $0 - producedAt }
        return result
    }

    /// Why the action does not meet the contract, if it does not. The count after the grace
    /// second is judged by the `max_sent_after_control` objective, not here.
    public var problems: [String] {
        guard producedAtOffsetMilliseconds != nil else {
            return [
                "\(action.rawValue) of campaign \(campaign) at \(at) was never produced (its trigger was not reached)"
            ]
        }
        guard action == .cancel, let progress else { return [] }
        let total = Int64(notifications)
        if progress.sent + progress.cancelled != total {
            return [
                "cancelled campaign \(campaign): sent \(progress.sent) + cancelled \(progress.cancelled) ≠ total \(total)"
            ]
        }
        return []
    }

    /// The report's lines for this action.
    public var lines: [String] {
        let head = "\(action.rawValue) \(campaign) (\(campaignID)) at \(at): "
        guard let produced = producedAtOffsetMilliseconds else { return [head + "never produced"] }
        let acknowledged = acknowledgedAfterMilliseconds.map { " (acknowledged \($0) ms after it was sent)" } ?? ""
        var lines = [
            head + "produced \(Self.seconds(produced)) after the start\(acknowledged), "
                + "\(deliveredBefore) of \(notifications) delivered before it, \(deliveredAfter) from it on"
        ]
        if let grace = deliveredAfterGrace {
            let last =
                lastDeliveryAfterMilliseconds.map { "last one \($0) ms after the command" } ?? "none after the command"
            lines.append(
                "  after +1 s: \(grace) delivered (objective 0)\(action == .pause ? " until the resume" : ""); \(last)")
        }
        if let progress {
            lines.append(
                "  workers: sent \(progress.sent) + cancelled \(progress.cancelled) = \(progress.sent + progress.cancelled) "
                    + "of \(notifications) (finished \(progress.finished), accepted \(progress.accepted))")
        } else if action == .cancel {
            lines.append("  workers: progress topic not read (sent + cancelled unknown)")
        }
        return lines
    }

    static func seconds(_ milliseconds: Int64) -> String {
        LoadTestObjectiveResult.format(Double(milliseconds) / 1000) + " s"
    }
}
