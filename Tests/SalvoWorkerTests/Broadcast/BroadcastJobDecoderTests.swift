import Foundation
import NIOCore
import SalvoAPNs
import Testing

@testable import SalvoWorker

/// Broadcast jobs (`channel_id`) and the Live Activity payload rules, decoded without a network.
@Suite struct BroadcastJobDecoderTests {
    static let channel = "dGVzdC1jaGFubmVsLWlkMQ=="
    static let update = #"{"aps":{"timestamp":1767225600,"event":"update","content-state":{"score":"1-0"}}}"#
    let decoder = try! JobDecoder(configuration: .init(apps: ["news": AppProfile(bundleID: "com.example.news")]))

    func decode(_ json: String) -> Result<DecodedJob, JobRejection> {
        self.decoder.decodeAny(ByteBuffer(string: json))
    }

    func reason(_ json: String) -> String? {
        if case .failure(let rejection) = self.decode(json) { return rejection.reason.code }
        return nil
    }

    @Test("a broadcast job decodes with its defaults; its request carries a deterministic request id")
    func decodes() throws {
        let result = self.decode(
            #"{"id":"b-1","app":"news","channel_id":"\#(Self.channel)","priority":5,"payload":\#(Self.update)}"#)
        guard case .success(.broadcast(let job)) = result else {
            Issue.record("\(result)")
            return
        }
        #expect(job.channelID.string == Self.channel)
        #expect(job.bundleID.string == "com.example.news")
        #expect(job.priority == .powerConsiderate && job.expiration.secondsSince1970 == 0)
        #expect(job.payload == ByteBuffer(string: Self.update), "the payload's bytes, unchanged")
        #expect(job.warnings.isEmpty)
        let request = try job.request()
        #expect(request.path == "/4/broadcasts/apps/com.example.news")
        #expect(request.requestID == job.requestID)
        let again = self.decode(#"{"id":"b-1","app":"news","channel_id":"\#(Self.channel)","payload":\#(Self.update)}"#)
        guard case .success(.broadcast(let replay)) = again else { return }
        #expect(replay.requestID == job.requestID, "a replayed job keeps its apns-request-id")
        // A device job still decodes as one, through both entry points.
        let device = #"{"id":"d-1","app":"news","token":"\#(String(repeating: "ab", count: 32))","payload":{"aps":{}}}"#
        guard case .success(.push) = self.decode(device) else {
            Issue.record("device job")
            return
        }
        #expect(
            self.reason(#"{"id":"b-1","app":"news","channel_id":"\#(Self.channel)","payload":\#(Self.update)}"#) == nil)
        if case .success = self.decoder.decode(
            ByteBuffer(string: #"{"id":"b","app":"news","channel_id":"\#(Self.channel)","payload":\#(Self.update)}"#))
        {
            Issue.record("decode(_:) must not return a broadcast as a device job")
        }
    }

    @Test("Apple's header and payload rules are checked before sending")
    func rejections() {
        let head = #""id":"b","app":"news","channel_id":"\#(Self.channel)""#
        let cases: [(String, String)] = [
            (#"{"id":"b","app":"news","channel_id":"not base64!","payload":\#(Self.update)}"#, "invalid_field"),
            (
                #"{\#(head),"token":"\#(String(repeating: "ab", count: 32))","payload":\#(Self.update)}"#,
                "conflicting_fields"
            ),
            (
                #"{\#(head),"tokens":["\#(String(repeating: "ab", count: 32))"],"payload":\#(Self.update)}"#,
                "conflicting_fields"
            ),
            (#"{\#(head),"push_type":"alert","payload":\#(Self.update)}"#, "invalid_push_type"),
            (#"{\#(head),"topic":"com.example.other","payload":\#(Self.update)}"#, "invalid_topic"),
            (#"{\#(head),"collapse_id":"x","payload":\#(Self.update)}"#, "invalid_collapse_id"),
            (#"{\#(head),"priority":7,"payload":\#(Self.update)}"#, "invalid_priority"),
            (#"{\#(head),"expiration":-1,"payload":\#(Self.update)}"#, "invalid_expiration"),
            (#"{\#(head)}"#, "missing_field"),
            (#"{"app":"news","channel_id":"\#(Self.channel)","payload":\#(Self.update)}"#, "missing_field"),
            (#"{"id":"b","app":"nope","channel_id":"\#(Self.channel)","payload":\#(Self.update)}"#, "unknown_app"),
            (
                #"{\#(head),"payload":{"aps":{"event":"update","timestamp":1,"content-state":{"x":"\#(String(repeating: "y", count: 5_100))"}}}}"#,
                "payload_too_large"
            ),
            (
                #"{\#(head),"payload":{"aps":{"event":"start","timestamp":1,"content-state":{},"attributes-type":"A","attributes":{},"alert":"go"}}}"#,
                "invalid_payload"
            ),
            (#"{\#(head),"payload":{"aps":{"timestamp":1,"content-state":{}}}}"#, "invalid_payload"),
            (#"{\#(head),"payload":{"aps":{"event":"update","timestamp":1}}}"#, "invalid_payload"),
            (
                #"{\#(head),"payload":{"aps":{"event":"update","timestamp":true,"content-state":{}}}}"#,
                "invalid_payload"
            ),
            (#"{\#(head),"payload":{"aps":{"event":"update","timestamp":1,"content-state":[]}}}"#, "invalid_payload"),
            (#"{\#(head),"payload":{"aps":{"event":"pause","timestamp":1}}}"#, "invalid_payload"),
            (#"{\#(head),"payload":{"data":1}}"#, "invalid_payload"),
        ]
        for (json, code) in cases {
            #expect(self.reason(json) == code, "\(json.prefix(120))")
        }
        // A payload of exactly 5,120 bytes passes (device liveactivity jobs stop at 4,096).
        let base = #"{"aps":{"event":"update","timestamp":1,"content-state":{"x":""}}}"#
        let filler = String(repeating: "z", count: 5_120 - base.utf8.count)
        let full = base.replacingOccurrences(of: #""x":"""#, with: #""x":"\#(filler)""#)
        #expect(self.reason(#"{\#(head),"payload":\#(full)}"#) == nil)
    }

    @Test("the storage-policy rule applies when the channel's policy is known")
    func storagePolicy() throws {
        let result = self.decode(
            #"{"id":"b","app":"news","channel_id":"\#(Self.channel)","expiration":1900000000,"payload":\#(Self.update)}"#
        )
        guard case .success(.broadcast(let job)) = result else { throw CancellationError() }
        #expect(throws: JobRejection.self) { try job.request(storagePolicy: .noStorage) }
        #expect((try? job.request(storagePolicy: .mostRecentMessage)) != nil)
        #expect((try? job.request()) != nil, "unknown policy: APNs decides")
    }

    @Test("warnings count what devices would ignore; push-to-start rules for device jobs")
    func liveActivityRules() throws {
        let warned = try LiveActivityPayload.check(
            Array(#"{"aps":{"event":"update","stale-date":5,"dismissal-date":9,"content-state":{}}}"#.utf8),
            kind: .broadcast,
            priority: .immediate)
        #expect(warned == [.missingTimestamp, .dismissalDateIgnored, .budgetedPriority])
        #expect(warned.labelValues == ["missing_timestamp", "dismissal_date_ignored", "budgeted_priority"])
        let stale = try LiveActivityPayload.check(
            Array(#"{"aps":{"event":"end","timestamp":10,"stale-date":5,"dismissal-date":20}}"#.utf8), kind: .device,
            priority: .low)
        #expect(stale == [.staleBeforeTimestamp])

        let token = String(repeating: "cd", count: 32)
        let start =
            #"{"aps":{"event":"start","timestamp":1,"attributes-type":"Match","attributes":{"home":"A"},"content-state":{"score":"0-0"},"alert":{"title":"Kick-off"},"input-push-channel":"\#(Self.channel)"}}"#
        let device = { (payload: String) in
            #"{"id":"s","app":"news","token":"\#(token)","push_type":"liveactivity","payload":\#(payload)}"#
        }
        guard case .success(.push(let job)) = self.decode(device(start)) else {
            Issue.record("a valid push-to-start")
            return
        }
        #expect(job.liveActivityWarnings.isEmpty)
        for broken in [
            start.replacingOccurrences(of: #""alert":{"title":"Kick-off"},"#, with: ""),
            start.replacingOccurrences(of: #""attributes-type":"Match","#, with: ""),
            start.replacingOccurrences(
                of: #""input-push-channel":"\#(Self.channel)""#,
                with: #""input-push-channel":"\#(Self.channel)","input-push-token":1"#),
            start.replacingOccurrences(of: #""input-push-channel":"\#(Self.channel)""#, with: #""input-push-token":2"#),
        ] {
            #expect(self.reason(device(broken)) == "invalid_payload", "\(broken)")
        }
        let update = device(#"{"aps":{"event":"update","content-state":{}}}"#)
        guard case .success(.push(let updateJob)) = self.decode(update) else { return }
        #expect(updateJob.liveActivityWarnings == [.missingTimestamp, .budgetedPriority])
    }

    @Test("ChannelNotRegistered becomes a channel feedback event keyed by the channel; other answers do not")
    func feedback() throws {
        let result = self.decode(
            #"{"id":"b","app":"news","channel_id":"\#(Self.channel)","campaign_id":"final","payload":\#(Self.update)}"#)
        guard case .success(.broadcast(let job)) = result else { throw CancellationError() }
        let at = UTCTimestamp(millisecondsSince1970: 1_767_225_600_123)
        let gone = APNsChannelResponse(
            status: 400, requestID: "5b1a4c3e-8f2d-4e6a-9b7c-1d2e3f4a5b6c", reason: .channelNotRegistered)
        let event = try #require(ChannelFeedbackEvent(job: job, response: gone, observedAt: at))
        let record = event.record()
        #expect(record.key == Array(Self.channel.utf8))
        let object = try #require(JSONSerialization.jsonObject(with: Data(record.value)) as? [String: Any])
        #expect(object["channel_id"] as? String == Self.channel)
        #expect(object["apns_reason"] as? String == "ChannelNotRegistered" && object["apns_status"] as? Int == 400)
        #expect(object["bundle_id"] as? String == "com.example.news" && object["campaign_id"] as? String == "final")
        #expect(object["observed_at"] as? String == "2026-01-01T00:00:00.123Z")
        // The schema's channel_event names exactly these members.
        let schemaURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
                "schema/feedback.schema.json")
        let schema = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: schemaURL)) as? [String: Any])
        let channelEvent = try #require((schema["$defs"] as? [String: Any])?["channel_event"] as? [String: Any])
        #expect(Set((channelEvent["properties"] as? [String: Any])?.keys.map { $0 } ?? []) == Set(object.keys))
        #expect(Set(channelEvent["required"] as? [String] ?? []) == Set(object.keys))

        #expect(
            ChannelFeedbackEvent(
                job: job, response: APNsChannelResponse(status: 400, reason: .badChannelId), observedAt: at) == nil)
        #expect(
            ChannelFeedbackEvent(
                job: job, response: APNsChannelResponse(status: 500, reason: .channelNotRegistered), observedAt: at)
                == nil)
        #expect(ChannelFeedbackEvent(job: job, response: APNsChannelResponse(status: 200), observedAt: at) == nil)
    }
}
