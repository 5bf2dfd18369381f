import NIOCore
import SalvoAPNs
import SalvoHTTP2
import Testing

@testable import SalvoMockAPNs

/// Apple's channel-management and broadcast rules, one at a time, without a network.
@Suite struct BroadcastJudgeTests {
    static let app = "com.example.salvo"
    let store = MockChannelStore()
    var judge: MockBroadcastJudge {
        MockBroadcastJudge(
            store: self.store, environment: .production, featureDisabled: ["com.example.off"],
            disallowed: ["com.example.banned"])
    }

    static func request(
        _ method: String, _ path: String, _ fields: [String: [String]] = [:], body: String = ""
    ) -> MockBroadcastRequest {
        MockBroadcastRequest(method: method, path: path, fields: fields, body: ByteBuffer(string: body))
    }

    static let channels = "/1/apps/\(app)/channels"
    static let broadcast = "/4/broadcasts/apps/\(app)"
    static let create = #"{"message-storage-policy": 1, "push-type": "LiveActivity"}"#
    static let payload = #"{"aps":{"timestamp":1,"event":"update","content-state":{}}}"#

    func manage(_ request: MockBroadcastRequest, auth: APNsReason? = nil) -> MockBroadcastJudge.Outcome {
        self.judge.manage(request) { _ in auth }
    }

    func created(policy: Int = 1) throws -> String {
        let outcome = self.manage(
            Self.request(
                "POST", Self.channels, body: #"{"message-storage-policy":\#(policy),"push-type":"LiveActivity"}"#))
        guard case .created(let id) = outcome else { throw RuleFailure(outcome: "\(outcome)") }
        return id
    }

    struct RuleFailure: Error { var outcome: String }

    @Test("create, read, list and delete a channel")
    func lifecycle() throws {
        let id = try self.created(policy: 0)
        #expect(APNsChannelID(id) != nil)
        #expect(
            self.manage(Self.request("GET", Self.channels, ["apns-channel-id": [id]]))
                == .read(APNsChannelConfiguration(storagePolicy: .noStorage)))
        #expect(self.manage(Self.request("GET", "/1/apps/\(Self.app)/all-channels")) == .listed([id]))
        #expect(self.manage(Self.request("DELETE", Self.channels, ["apns-channel-id": [id]])) == .deleted)
        #expect(
            self.manage(Self.request("DELETE", Self.channels, ["apns-channel-id": [id]]))
                == .rejected(.channelNotRegistered))
        #expect(self.manage(Self.request("GET", "/1/apps/\(Self.app)/all-channels")) == .listed([]))
    }

    @Test("what clients are known to send is accepted: the policy as a string, the push type in any case")
    func lenientCreate() {
        for body in [
            #"{"message-storage-policy":"1","push-type":"LiveActivity"}"#,
            #"{"message-storage-policy":0,"push-type":"liveactivity"}"#,
            #"{"message-storage-policy":1,"push-type":"Liveactivity"}"#,
        ] {
            let outcome = self.manage(Self.request("POST", Self.channels, body: body))
            guard case .created = outcome else {
                Issue.record("\(body) → \(outcome)")
                continue
            }
        }
    }

    @Test("every channel-management reason")
    func managementReasons() throws {
        let id = try self.created()
        let cases: [(MockBroadcastRequest, APNsReason)] = [
            (Self.request("POST", "/1/apps/\(Self.app)/channel"), .badPath),
            (Self.request("POST", "1/apps/\(Self.app)/channels"), .badPath),
            (Self.request("PUT", Self.channels), .methodNotAllowed),
            (Self.request("POST", "/1/apps/\(Self.app)/all-channels"), .methodNotAllowed),
            (Self.request("GET", Self.channels), .missingChannelId),
            (Self.request("GET", Self.channels, ["apns-channel-id": ["not base64!"]]), .badChannelId),
            (Self.request("GET", Self.channels, ["apns-channel-id": [id, id]]), .badChannelId),
            (Self.request("GET", Self.channels, ["apns-channel-id": ["dGVzdC1jaGFubmVsLWlk"]]), .channelNotRegistered),
            (
                Self.request("POST", Self.channels, ["apns-request-id": ["not-a-uuid"]], body: Self.create),
                .badRequestParams
            ),
            (
                Self.request("POST", Self.channels, body: #"{"message-storage-policy":2,"push-type":"LiveActivity"}"#),
                .badRequestParams
            ),
            (Self.request("POST", Self.channels, body: #"{"push-type":"LiveActivity"}"#), .badRequestParams),
            (Self.request("POST", Self.channels, body: "[1]"), .badRequestPayload),
            (Self.request("POST", Self.channels, body: "{"), .badRequestPayload),
            (Self.request("POST", Self.channels, body: #"{"message-storage-policy":1}"#), .missingPushType),
            (
                Self.request("POST", Self.channels, body: #"{"message-storage-policy":1,"push-type":"alert"}"#),
                .invalidPushType
            ),
            (Self.request("POST", Self.channels), .payloadEmpty),
            (Self.request("POST", "/1/apps/com.example.off/channels", body: Self.create), .featureNotEnabled),
            (Self.request("POST", "/1/apps/com.example.banned/channels", body: Self.create), .topicDisallowed),
        ]
        for (request, reason) in cases {
            #expect(self.manage(request) == .rejected(reason), "\(request.method) \(request.path) \(request.fields)")
        }
        // Authentication (the caller's rule) comes after the path and method, before the rest.
        #expect(self.manage(Self.request("GET", Self.channels), auth: .topicMismatch) == .rejected(.topicMismatch))
        #expect(self.manage(Self.request("PUT", Self.channels), auth: .topicMismatch) == .rejected(.methodNotAllowed))
    }

    @Test(
        "the 10,001st channel of an app is refused with CannotCreateChannelConfig; other apps and deletions make room")
    func channelLimit() throws {
        for _ in 0..<MockChannelStore.appleLimit {
            guard self.store.create(bundleID: Self.app, environment: .production, storagePolicy: 1) != nil else {
                Issue.record("refused below the limit")
                return
            }
        }
        let request = Self.request("POST", Self.channels, body: Self.create)
        #expect(self.manage(request) == .rejected(.cannotCreateChannelConfig))
        #expect(
            self.store.create(bundleID: Self.app, environment: .sandbox, storagePolicy: 1) != nil, "per environment")
        guard case .created = self.manage(Self.request("POST", "/1/apps/com.example.other/channels", body: Self.create))
        else {
            Issue.record("per app")
            return
        }
        let first = self.store.channelIDs(bundleID: Self.app, environment: .production)[0]
        #expect(self.manage(Self.request("DELETE", Self.channels, ["apns-channel-id": [first]])) == .deleted)
        guard case .created = self.manage(request) else {
            Issue.record("a deletion makes room")
            return
        }
        #expect(self.store.counts()["production/\(Self.app)"] == MockChannelStore.appleLimit)
    }

    func send(
        _ fields: [String: [String]], body: String = BroadcastJudgeTests.payload,
        path: String = BroadcastJudgeTests.broadcast
    )
        -> MockBroadcastJudge.Outcome
    {
        self.judge.broadcast(Self.request("POST", path, fields, body: body)) { _ in nil }
    }

    @Test("every broadcast reason, and the storage-policy rule for apns-expiration")
    func broadcastReasons() throws {
        let stored = try self.created(policy: 1)
        let unstored = try self.created(policy: 0)
        let base: [String: [String]] = [
            "apns-channel-id": [stored], "apns-push-type": ["liveactivity"], "apns-priority": ["10"],
        ]
        func with(_ name: String, _ value: [String]?) -> [String: [String]] {
            var fields = base
            fields[name] = value
            return fields
        }
        #expect(self.send(base) == .broadcast(channelID: stored))
        #expect(self.send(with("apns-expiration", ["1900000000"])) == .broadcast(channelID: stored))
        #expect(
            self.send(with("apns-channel-id", [unstored]).merging(["apns-expiration": ["0"]]) { $1 })
                == .broadcast(channelID: unstored))
        let cases: [([String: [String]], String, APNsReason)] = [
            (
                with("apns-channel-id", [unstored]).merging(["apns-expiration": ["1900000000"]]) { $1 }, Self.payload,
                .badExpirationDate
            ),
            (with("apns-expiration", ["soon"]), Self.payload, .badExpirationDate),
            (with("apns-channel-id", nil), Self.payload, .missingChannelId),
            (with("apns-channel-id", ["%%%"]), Self.payload, .badChannelId),
            (with("apns-channel-id", ["dGVzdC1jaGFubmVsLWlk"]), Self.payload, .channelNotRegistered),
            (with("apns-push-type", nil), Self.payload, .missingPushType),
            (with("apns-push-type", ["alert"]), Self.payload, .invalidPushType),
            (with("apns-priority", ["7"]), Self.payload, .badPriority),
            (with("apns-request-id", ["x"]), Self.payload, .badRequestParams),
            (base, "", .payloadEmpty),
            (base, "{\"a\":\"" + String(repeating: "x", count: 5_200) + "\"}", .payloadTooLarge),
            (base, "not json", .badRequestPayload),
        ]
        for (fields, body, reason) in cases {
            #expect(self.send(fields, body: body) == .rejected(reason), "\(fields) \(body.prefix(20))")
        }
        #expect(self.send(base, path: "/4/broadcasts/apps/com.example.off") == .rejected(.featureNotEnabled))
        #expect(self.send(base, path: "/4/broadcasts/apps/com.example.banned") == .rejected(.topicDisallowed))
        #expect(self.send(base, path: "/4/broadcasts/apps/") == .rejected(.badPath))
        #expect(
            self.judge.broadcast(Self.request("GET", Self.broadcast, base)) { _ in nil } == .rejected(.methodNotAllowed)
        )
        #expect(
            self.judge.broadcast(Self.request("POST", Self.broadcast, base, body: Self.payload)) { _ in .topicMismatch }
                == .rejected(.topicMismatch))
        // A payload of exactly 5,120 bytes is accepted.
        let filler = String(repeating: "x", count: 5_120 - #"{"a":""}"#.utf8.count)
        #expect(self.send(base, body: "{\"a\":\"\(filler)\"}") == .broadcast(channelID: stored))
    }

    @Test("answers: apns-request-id echoed or generated; content-type on JSON bodies; the ids Apple puts in headers")
    func answers() {
        let id = "0f3b2a7e-6c1d-4c55-9d43-2f8f3c1e9a10"
        let echo = MockBroadcastAnswer.response(
            .rejected(.badChannelId), request: Self.request("GET", Self.channels, ["apns-request-id": [id]]))
        #expect(echo.status == 400)
        #expect(echo.headers.first(name: "apns-request-id") == id)
        #expect(echo.headers.first(name: "content-type") == "application/json")
        #expect(echo.body == ByteBuffer(string: #"{"reason":"BadChannelId"}"#))
        let created = MockBroadcastAnswer.response(
            .created(channelID: "YWJj"), request: Self.request("POST", Self.channels))
        #expect(created.status == 201)
        #expect(created.headers.first(name: "apns-channel-id") == "YWJj")
        #expect(
            created.headers.first(name: "apns-request-id").map { APNsID(headerValue: Array($0.utf8)) != nil } == true)
        #expect(created.body == nil)
        #expect(MockBroadcastAnswer.response(.deleted, request: Self.request("DELETE", Self.channels)).status == 204)
        let broadcast = MockBroadcastAnswer.response(
            .broadcast(channelID: "YWJj"), request: Self.request("POST", Self.broadcast))
        #expect(broadcast.status == 200)
        #expect(broadcast.headers.contains(name: "apns-unique-id"))
        #expect(
            MockBroadcastAnswer.response(.rejected(.topicMismatch), request: Self.request("POST", Self.broadcast))
                .status == 403)
    }
}
