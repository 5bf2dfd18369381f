import Foundation
import SalvoKafka
import SalvoWorker
import Testing

/// The control follower against the real broker: replay from the beginning, live updates, and
/// how long a produced command takes to reach several followers (printed, never asserted).
@Suite(.serialized) struct CampaignControlFollowerTests {
    private func command(_ campaign: String, _ action: CampaignCommand.Action) -> CampaignCommand {
        CampaignCommand(campaignID: campaign, action: action, by: "follower-test", reason: "test", at: .now())
    }

    @Test func replaysTheTopicThenFollowsItLive() async throws {
        try await withCampaignBroker { broker in
            let topic = try await broker.compactedTopic("control")
            try await broker.send(command("spring", .cancel), to: topic)
            try await broker.send(command("summer", .pause), to: topic)
            _ = try await broker.producer.send(
                KafkaProducerMessage(topic: topic, key: Array("junk".utf8), value: Array("{".utf8)))

            let follower = try CampaignControlFollower(topic: topic, client: broker.client, logger: EngineKafka.logger)
            try await follower.start()
            let initial = try await follower.caughtUp(timeout: .seconds(20))
            #expect(initial.decision(for: "spring") == .cancel)
            #expect(initial.decision(for: "summer") == .hold)
            #expect(initial.decision(for: nil) == .send)
            #expect(follower.malformedRecords == 1)

            var updates = follower.updates.makeAsyncIterator()
            _ = await updates.next()  // the caught-up snapshot
            try await broker.send(command("summer", .resume), to: topic)
            let live = try #require(await updates.next())
            #expect(live.decision(for: "summer") == .send)
            #expect(live.decision(for: "spring") == .cancel)

            // A tombstone forgets the campaign.
            _ = try await broker.producer.send(KafkaProducerMessage(topic: topic, key: Array("spring".utf8), value: []))
            let forgotten = try #require(await updates.next())
            #expect(forgotten.decision(for: "spring") == .send)
            await follower.close()
        }
    }

    @Test func anEmptyTopicIsCaughtUpAtOnceAndAMissingOneIsAnError() async throws {
        try await withCampaignBroker { broker in
            let topic = try await broker.compactedTopic("control-empty", partitions: 2)
            let follower = try CampaignControlFollower(topic: topic, client: broker.client, logger: EngineKafka.logger)
            try await follower.start()
            let state = try await follower.caughtUp(timeout: .seconds(20))
            #expect(state.commands.isEmpty)
            await follower.close()

            let missing = try CampaignControlFollower(
                topic: "no-such-control-\(UUID().uuidString)", client: broker.client, logger: EngineKafka.logger)
            await #expect(throws: KafkaError.self) { try await missing.start(timeout: .seconds(5)) }
            await missing.close()
        }
    }

    /// In force within 1 s fleet-wide: the time from handing a command to the producer until
    /// the last of three followers has it, over 20 commands.
    @Test func commandsReachEveryFollowerOfAFleet() async throws {
        try await withCampaignBroker { broker in
            let topic = try await broker.compactedTopic("control-latency")
            let seen = CampaignTestBox<[String: [ContinuousClock.Instant]]>([:])
            var followers: [CampaignControlFollower] = []
            for _ in 0..<3 {
                let follower = try CampaignControlFollower(
                    topic: topic, client: broker.client, logger: EngineKafka.logger
                ) { state in
                    let now = ContinuousClock.now
                    seen.mutate { seen in
                        for campaign in state.commands.keys
                        where !(seen[campaign]?.isEmpty == false && seen[campaign]!.count >= 3) {
                            seen[campaign, default: []].append(now)
                        }
                    }
                }
                try await follower.start()
                _ = try await follower.caughtUp(timeout: .seconds(20))
                followers.append(follower)
            }
            var latencies: [Duration] = []
            for index in 0..<20 {
                let campaign = "latency-\(index)"
                let start = ContinuousClock.now
                try await broker.send(command(campaign, .cancel), to: topic)
                let deadline = start + .seconds(10)
                while seen.value[campaign]?.count ?? 0 < 3, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(2))
                }
                let arrivals = try #require(seen.value[campaign], "command \(index) reached no follower within 10 s")
                #expect(arrivals.count == 3, "command \(index) reached \(arrivals.count) of 3 followers")
                latencies.append(arrivals.max()! - start)
            }
            for follower in followers { await follower.close() }
            let sorted = latencies.sorted()
            print(
                "campaign control latency (produce → all 3 followers, 20 commands, librdkafka \(RDKafkaLibrary.version)): "
                    + "median \(sorted[sorted.count / 2]), max \(sorted.last!)")
        }
    }
}
