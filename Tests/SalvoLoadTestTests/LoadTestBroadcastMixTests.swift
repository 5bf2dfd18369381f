import Foundation
import SalvoAPNs
import Testing

@testable import SalvoLoadTest

/// A scenario mix with Live Activity broadcast jobs — generated in place of
/// some per-user jobs, each expected once in the mock's record under the worker's deterministic
/// `apns-request-id`, and counted on a lane of their own.
@Suite("Load mix: broadcast jobs")
struct LoadTestBroadcastMixTests {
    static let channels = ["q5dNvHq3S2yC1xq9Zz8LwA==", "AAECAwQFBgcICQoLDA0ODw=="]

    static func scenario(broadcasts: Double) -> LoadTestScenario {
        var scenario = LoadTestScenario()
        scenario.phases = [.init(durationSeconds: 1, rate: 10)]
        scenario.mix.broadcasts = broadcasts
        scenario.mix.broadcastChannels = channels
        return scenario
    }

    @Test("mix.broadcasts and mix.broadcast_channels are read; off by default; channels are required and checked")
    func parsing() throws {
        let yaml =
            "kind: load\nphases: [{duration_seconds: 1, rate: 10}]\nmix: {broadcasts: 0.25, broadcast_channels: [\"\(Self.channels[0])\"]}\n"
        let scenario = try LoadTestScenario.parse(yaml)
        #expect(scenario.mix.broadcasts == 0.25 && scenario.mix.broadcastChannels == [Self.channels[0]])
        #expect(LoadTestScenario.Mix().broadcasts == 0)
        #expect(
            LoadTestControlTests.message(
                "kind: load\nphases: [{duration_seconds: 1, rate: 10}]\nmix: {broadcasts: 0.1}\n"
            )
            .contains("mix.broadcasts needs mix.broadcast_channels"))
        #expect(
            LoadTestControlTests.message(
                "kind: load\nphases: [{duration_seconds: 1, rate: 10}]\nmix: {broadcasts: 2, broadcast_channels: [\"not base64!\"]}\n"
            )
            .contains("mix.broadcasts must be 0…1; mix.broadcast_channels: not base64! is not a channel id"))
    }

    @Test(
        "a share of the per-user jobs become broadcasts to the channels in turn, on the per-user topic's lane of their own"
    )
    func generation() throws {
        let scenario = Self.scenario(broadcasts: 0.5)
        var factory = LoadTestJobFactory(scenario: scenario, runID: "lt-b", startMilliseconds: 1_000_000)
        let jobs = try LoadTestSchedule(phases: scenario.phases).flatMap { try factory.jobs(for: $0) }
        let broadcasts = jobs.filter { $0.lane == .broadcast }
        #expect(jobs.count == 10 && broadcasts.count == 5)
        #expect(broadcasts.map(\.broadcastChannel) == [0, 1, 0, 1, 0].map { Self.channels[$0] })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(broadcasts[0].value)) as? [String: Any])
        #expect(
            object["channel_id"] as? String == Self.channels[0] && object["priority"] as? Int == 5
                && object["token"] == nil)
        let aps = try #require((object["payload"] as? [String: Any])?["aps"] as? [String: Any])
        #expect(aps["event"] as? String == "update" && aps["timestamp"] is Int && aps["content-state"] is [String: Any])

        let measurement = LoadTestMeasurement(runID: "lt-b", startMilliseconds: 1_000_000)
        for job in jobs { measurement.register(job) }
        #expect(measurement.snapshot().expectations.delivered == ["priority": 5, "broadcast": 5])
        // The mock's record of a broadcast names its request id where a push has its apns-id.
        let requestID = APNsBroadcastRequest.deterministicRequestID(
            jobID: broadcasts[1].id, channelID: try #require(APNsChannelID(Self.channels[1])))
        var lines = LoadTestRecordLines(measurement: measurement)
        let record =
            #"{"request_id":"\#(requestID)","channel_id":"\#(Self.channels[1])","topic":"com.example.app","push_type":"liveactivity","priority":5,"expiration":0,"payload_sha256":"00","payload_bytes":90,"received_at_ms":1000250,"connection":2}"#
            + "\n"
        #expect(lines.consume(Array(record.utf8)) == 1)
        let snapshot = measurement.snapshot()
        #expect(snapshot.observations.delivered == ["broadcast": 1] && snapshot.observations.unknownDeliveries == 0)
        #expect(snapshot.lanes["broadcast"]?.count == 1)
    }

    @Test("without broadcasts the report shows no broadcast lane")
    func reportLine() {
        let text = LoadTestTextReport.render(LoadTestReportTests.report(LoadTestReportTests.measured()))
        #expect(!text.contains("delivered broadcast"))
        #expect(text.contains("delivered priority"))
    }
}
