import SalvoWorker
import Testing

/// `CampaignControlState` as timelines: commands at times (ms), then what the worker decides.
@Suite struct CampaignControlStateTests {
    private func command(_ campaign: String, _ action: CampaignCommand.Action, at ms: Int64) -> CampaignCommand {
        CampaignCommand(
            campaignID: campaign, action: action, by: "test", reason: "timeline",
            at: UTCTimestamp(millisecondsSince1970: ms))
    }

    @Test func noCommandsSendsEverythingAndJobsWithoutCampaignAlwaysSend() {
        var state = CampaignControlState()
        #expect(state.decision(for: "spring") == .send)
        #expect(state.decision(for: nil) == .send)
        state.apply(command("spring", .cancel, at: 1))
        #expect(state.decision(for: nil) == .send, "a job without campaign_id is never affected")
        #expect(state.decision(for: "summer") == .send, "another campaign is not affected")
    }

    @Test func pauseHoldsResumeSendsCancelCancels() {
        var state = CampaignControlState()
        state.apply(command("spring", .pause, at: 10))
        #expect(state.decision(for: "spring") == .hold)
        state.apply(command("spring", .resume, at: 20))
        #expect(state.decision(for: "spring") == .send)
        state.apply(command("spring", .pause, at: 30))
        state.apply(command("spring", .cancel, at: 40))
        #expect(state.decision(for: "spring") == .cancel)
        #expect(state.stoppedCampaigns == ["spring": .cancel])
    }

    @Test func latestByTimeWinsWhateverTheArrivalOrder() {
        let timeline = [
            command("spring", .pause, at: 10), command("spring", .cancel, at: 30), command("spring", .resume, at: 20),
        ]
        let inOrder = CampaignControlState(timeline.sorted { $0.at < $1.at })
        let asArrived = CampaignControlState(timeline)
        #expect(inOrder.decision(for: "spring") == .cancel)
        #expect(asArrived.decision(for: "spring") == .cancel, "a resume older than the cancel does not undo it")
        #expect(asArrived.commands == inOrder.commands)
    }

    @Test func equalTimesTheLaterRecordWins() {
        var state = CampaignControlState()
        state.apply(command("spring", .pause, at: 10))
        let changed = state.apply(command("spring", .resume, at: 10))
        #expect(changed)
        #expect(state.decision(for: "spring") == .send)
    }

    @Test func reapplyingIsIdempotentAndDoesNotBumpTheGeneration() {
        var state = CampaignControlState()
        let cancel = command("spring", .cancel, at: 5)
        let first = state.apply(cancel)
        #expect(first)
        let generation = state.generation
        let again = state.apply(cancel)
        let older = state.apply(command("spring", .resume, at: 4))
        #expect(!again)
        #expect(!older, "older than the cancel")
        #expect(state.generation == generation)
        #expect(state.decision(for: "spring") == .cancel)
    }

    @Test func aResumeAfterACancelSendsNewWorkAgain() {
        // Latest wins without exception, as compaction would leave it: a worker started later sees
        // only the resume, so the running ones must agree with it.
        var state = CampaignControlState([command("spring", .cancel, at: 1), command("spring", .resume, at: 2)])
        #expect(state.decision(for: "spring") == .send)
        state.apply(command("spring", .cancel, at: 3))
        #expect(state.decision(for: "spring") == .cancel)
    }

    @Test func aTombstoneForgetsTheCampaign() {
        var state = CampaignControlState([command("spring", .pause, at: 1), command("summer", .cancel, at: 1)])
        let removed = state.remove(campaignID: "spring")
        let removedAgain = state.remove(campaignID: "spring")
        #expect(removed && !removedAgain)
        #expect(state.decision(for: "spring") == .send)
        #expect(state.decision(for: "summer") == .cancel)
        #expect(state.command(for: "summer")?.by == "test")
    }

    @Test func manyCampaignsAreIndependent() {
        var state = CampaignControlState()
        for index in 0..<100 {
            state.apply(
                command("c\(index)", index % 3 == 0 ? .cancel : index % 3 == 1 ? .pause : .resume, at: Int64(index)))
        }
        #expect(state.decision(for: "c30") == .cancel)
        #expect(state.decision(for: "c31") == .hold)
        #expect(state.decision(for: "c32") == .send)
        #expect(state.stoppedCampaigns.count == 67)
    }
}
