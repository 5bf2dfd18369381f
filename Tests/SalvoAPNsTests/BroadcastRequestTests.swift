import NIOCore
import SalvoAPNs
import SalvoHTTP2
import Testing

/// The client side of broadcasts and channels: what is refused before sending, and how answers read.
@Suite struct BroadcastRequestTests {
    static let channel = APNsChannelID("dGVzdC1jaGFubmVs")!

    @Test("a broadcast's payload is refused before sending when empty, over 5,120 bytes or not an object")
    func payloadRules() throws {
        func make(_ text: String) throws(APNsError) -> APNsBroadcastRequest {
            try APNsBroadcastRequest(
                bundleID: "com.example.app", channelID: Self.channel, payload: ByteBuffer(string: text))
        }
        #expect(throws: APNsError.self) { try make("") }
        #expect(throws: APNsError.self) { try make("[1]") }
        #expect(throws: APNsError.self) { try make("{\"a\":\"" + String(repeating: "x", count: 5_120) + "\"}") }
        let request = try make(#"{"aps":{"event":"update"}}"#)
        #expect(request.path == "/4/broadcasts/apps/com.example.app")
        let fields = Dictionary(request.headerFields, uniquingKeysWith: { first, _ in first })
        #expect(
            fields == [
                "apns-channel-id": Self.channel.string, "apns-push-type": "liveactivity", "apns-priority": "10",
                "apns-expiration": "0",
            ])
        do {
            try request.check(storagePolicy: .noStorage)
        } catch {
            Issue.record("expiration 0 suits every channel: \(error)")
        }
        let stored = try APNsBroadcastRequest(
            bundleID: "com.example.app", channelID: Self.channel, expiration: try APNsExpiration(secondsSince1970: 5),
            payload: ByteBuffer(string: "{}"))
        #expect(throws: APNsError.self) { try stored.check(storagePolicy: .noStorage) }
        try stored.check(storagePolicy: .mostRecentMessage)
    }

    @Test("channel ids, configurations and answers read as Apple writes them")
    func reading() throws {
        #expect(APNsChannelID("") == nil && APNsChannelID("not base64") == nil && APNsChannelID("YQ==") != nil)
        #expect(
            try APNsChannelConfiguration(
                parsing: Array(#"{"message-storage-policy":"1","push-type":"Liveactivity"}"#.utf8)
            ).storagePolicy == .mostRecentMessage)
        #expect(throws: APNsReason.missingPushType) {
            try APNsChannelConfiguration(parsing: Array(#"{"message-storage-policy":1}"#.utf8))
        }
        #expect(throws: APNsReason.badRequestParams) {
            try APNsChannelConfiguration(parsing: Array(#"{"push-type":"LiveActivity"}"#.utf8))
        }
        #expect(
            APNsChannelConfiguration(storagePolicy: .noStorage).encoded()
                == Array(#"{"message-storage-policy":0,"push-type":"LiveActivity"}"#.utf8))
        #expect(
            APNsChannelStoragePolicy(argument: "most-recent") == .mostRecentMessage
                && APNsChannelStoragePolicy(argument: "2") == nil)

        let list = APNsChannelResponse(status: 200, body: Array(#"{"channels":["YQ==","Yg=="]}"#.utf8))
        #expect(try list.listedChannelIDs().map(\.string) == ["YQ==", "Yg=="])
        #expect(
            try APNsChannelResponse(status: 200).listedChannelIDs().isEmpty, "Apple's page also calls the answer empty")
        #expect(APNsChannelResponse(status: 400, reason: .channelNotRegistered).retryPolicy == .never)
        #expect(APNsChannelResponse(status: 429, reason: .tooManyRequests).retryPolicy == .afterDelayPerToken)
        #expect(APNsChannelResponse(status: 503).retryPolicy == .backoff)
        #expect(APNsChannelResponse(status: 201).retryPolicy == nil)
    }

    @Test("broadcast reasons: Apple's strings and statuses, permanent, apart from the device table")
    func reasons() {
        let table: [String: Int] = [
            "MissingChannelId": 400, "BadChannelId": 400, "ChannelNotRegistered": 400, "BadRequestParams": 400,
            "BadRequestPayload": 400, "CannotCreateChannelConfig": 400, "MissingPushType": 400,
            "FeatureNotEnabled": 400,
            "TopicMismatch": 403,
        ]
        for (string, status) in table {
            let reason = APNsReason(string)
            #expect(reason.string == string && reason.status == status && reason.isPermanent, "\(string)")
            #expect(APNsReason.broadcastOnly.contains(reason) && !APNsReason.documented.contains(reason))
            #expect(reason.metricLabel == string)
        }
        #expect(APNsReason.allDocumented.count == APNsReason.documented.count + table.count)
        #expect(
            APNsReason.channelNotRegistered.producesChannelFeedback && !APNsReason.channelNotRegistered.producesFeedback
        )
    }

    @Test("a broadcast's request id is derived from the job and the channel, a UUID v5")
    func requestID() {
        let first = APNsBroadcastRequest.deterministicRequestID(jobID: "goal-3", channelID: Self.channel)
        #expect(first == APNsBroadcastRequest.deterministicRequestID(jobID: "goal-3", channelID: Self.channel))
        #expect(first != APNsBroadcastRequest.deterministicRequestID(jobID: "goal-4", channelID: Self.channel))
        #expect(Array(first.string)[14] == "5")
        #expect(
            APNsEnvironment.production.channelManagement.port == 2196
                && APNsEnvironment.sandbox.channelManagement.port == 2195)
        #expect(APNsEnvironment.sandbox.channelManagement.host == "api-manage-broadcast.sandbox.push.apple.com")
    }
}
