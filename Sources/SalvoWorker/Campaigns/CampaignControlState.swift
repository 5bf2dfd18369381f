/// The fleet's campaign commands folded into one value: per campaign, the latest command by time.
///
/// Pure and `Sendable`, so a follower can publish snapshots and the worker core can ask it on its
/// hot path (`decision(for:)` is one dictionary lookup, none at all while no campaign has a
/// command). Folding is idempotent and, for distinct times, independent of order: a worker that
/// read the topic from the beginning and one that followed it live agree.
package struct CampaignControlState: Sendable, Hashable {
    /// The command in force per campaign id.
    package private(set) var commands: [String: CampaignCommand] = [:]
    /// Counts changes of the commands in force, so holders of a snapshot can tell it is stale
    /// without comparing the dictionaries.
    package private(set) var generation: UInt64 = 0

    package init() {}

    package init(_ commands: some Sequence<CampaignCommand>) {
        for command in commands { apply(command) }
    }

    /// Folds one command in. An older command than the one in force is ignored; at equal times
    /// the later one applied wins (the log order of the campaign's partition). Returns whether the
    /// command in force changed.
    @discardableResult
    package mutating func apply(_ command: CampaignCommand) -> Bool {
        if let current = commands[command.campaignID] {
            guard command.at >= current.at, command != current else { return false }
        }
        commands[command.campaignID] = command
        generation &+= 1
        return true
    }

    /// A tombstone (a record with no value) for the campaign: it is forgotten, as compaction
    /// would forget it. Returns whether anything changed.
    @discardableResult
    package mutating func remove(campaignID: String) -> Bool {
        guard commands.removeValue(forKey: campaignID) != nil else { return false }
        generation &+= 1
        return true
    }

    /// What to do with a notification of `campaignID`; jobs without a campaign are always sent.
    package func decision(for campaignID: String?) -> CampaignDecision {
        guard let campaignID, !commands.isEmpty, let command = commands[campaignID] else { return .send }
        switch command.action {
        case .cancel: return .cancel
        case .pause: return .hold
        case .resume: return .send
        }
    }

    /// The command in force for the campaign, if any.
    package func command(for campaignID: String) -> CampaignCommand? {
        commands[campaignID]
    }

    /// The campaigns whose decision differs from `previous`, with the new decision: what the core
    /// acts on when a snapshot arrives (`.cancel`: drop their unsent work, `.hold`: park it,
    /// `.send`: release what it parked).
    package func changes(since previous: CampaignControlState) -> [String: CampaignDecision] {
        var changes: [String: CampaignDecision] = [:]
        for campaignID in Set(commands.keys).union(previous.commands.keys) {
            let decision = decision(for: campaignID)
            if decision != previous.decision(for: campaignID) { changes[campaignID] = decision }
        }
        return changes
    }

    /// Campaigns whose work must not be sent now (paused or cancelled), for the core to sweep its
    /// queued, delayed and held work when a snapshot arrives.
    package var stoppedCampaigns: [String: CampaignDecision] {
        commands.compactMapValues { command in
            switch command.action {
            case .cancel: .cancel
            case .pause: .hold
            case .resume: nil
            }
        }
    }
}
