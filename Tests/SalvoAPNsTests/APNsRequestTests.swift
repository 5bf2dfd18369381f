import NIOCore
import SalvoAPNs
import Testing

@Suite struct APNsRequestTests {
    static let token = try! DeviceToken(hex: String(repeating: "ab", count: 32))

    static func payload(size: Int) -> ByteBuffer {
        precondition(size >= 2)
        return ByteBuffer(string: "{" + String(repeating: " ", count: size - 2) + "}")
    }

    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func headerFieldsInSendingOrder() throws {
        let id = APNsID.deterministic(jobID: "job", token: Self.token)
        let request = try APNsRequest(
            token: Self.token,
            topic: "com.example.app",
            pushType: .alert,
            priority: .powerConsiderate,
            expiration: APNsExpiration(secondsSince1970: 1_700_000_000),
            collapseID: APNsCollapseID("news"),
            apnsID: id,
            payload: ByteBuffer(string: #"{"aps":{"alert":"hi"}}"#)
        )
        let fields = request.headerFields(authorization: APNsAuthorization(jwt: "h.c.s", issuedAt: 0))
        #expect(
            fields.map { Self.text($0.name) } == [
                "apns-topic", "apns-push-type", "apns-priority", "apns-expiration", "apns-collapse-id", "apns-id",
                "authorization",
            ])
        #expect(
            fields.map { Self.text($0.value) } == [
                "com.example.app", "alert", "5", "1700000000", "news", id.description, "bearer h.c.s",
            ])
        #expect(Self.text(request.path) == "/3/device/" + String(repeating: "ab", count: 32))
        #expect(Self.text(APNsRequest.method) == "POST")
    }

    @Test func optionalHeadersAreLeftOut() throws {
        let request = try APNsRequest(
            token: Self.token, topic: "com.example.app", pushType: .alert, payload: Self.payload(size: 2))
        let fields = request.headerFields(authorization: nil)
        #expect(fields.map { Self.text($0.name) } == ["apns-topic", "apns-push-type", "apns-priority"])
        #expect(Self.text(fields[2].value) == "10")
    }

    @Test func backgroundDefaultsToPriority5AndRefuses10() throws {
        let headers = try APNsRequestHeaders(topic: "com.example.app", pushType: .background)
        #expect(headers.priority == .powerConsiderate)
        let error = #expect(throws: APNsError.self) {
            try APNsRequestHeaders(topic: "com.example.app", pushType: .background, priority: .immediate)
        }
        #expect(error?.code == .invalidPriority)
        #expect(error?.reason == .badPriority)
        #expect(error?.message.contains("background") == true)
    }

    @Test func wrongTopicSuffixNamesTheRule() {
        let error = #expect(throws: APNsError.self) {
            try APNsRequestHeaders(topic: "com.example.app", pushType: .voip)
        }
        #expect(error?.code == .invalidTopic)
        #expect(error?.reason == .badTopic)
        #expect(error?.message.contains(".voip") == true)
    }

    @Test func payloadSizeLimits() throws {
        let alert = try APNsRequestHeaders(topic: "com.example.app", pushType: .alert)
        let voip = try APNsRequestHeaders(topic: "com.example.app.voip", pushType: .voip)
        _ = try APNsRequest(token: Self.token, headers: alert, payload: Self.payload(size: 4096))
        let tooLarge = #expect(throws: APNsError.self) {
            try APNsRequest(token: Self.token, headers: alert, payload: Self.payload(size: 4097))
        }
        #expect(tooLarge?.code == .payloadTooLarge)
        #expect(tooLarge?.reason == .payloadTooLarge)
        _ = try APNsRequest(token: Self.token, headers: voip, payload: Self.payload(size: 5120))
        #expect(throws: APNsError.self) {
            try APNsRequest(token: Self.token, headers: voip, payload: Self.payload(size: 5121))
        }
    }

    @Test func emptyAndNonObjectPayloadsAreRefused() throws {
        let headers = try APNsRequestHeaders(topic: "com.example.app", pushType: .alert)
        let empty = #expect(throws: APNsError.self) {
            try APNsRequest(token: Self.token, headers: headers, payload: ByteBuffer())
        }
        #expect(empty?.code == .payloadEmpty)
        #expect(empty?.reason == .payloadEmpty)
        for bad in ["[1,2]", "\"text\"", "{", "}"] {
            let error = #expect(throws: APNsError.self, "\(bad)") {
                try APNsRequest(token: Self.token, headers: headers, payload: ByteBuffer(string: bad))
            }
            #expect(error?.code == .payloadNotJSONObject)
        }
        _ = try APNsRequest(token: Self.token, headers: headers, payload: ByteBuffer(string: " \n{ }\r\n"))
    }

    @Test func payloadBytesPassThroughUntouched() throws {
        let raw = #"{"aps" : {"alert":"héllo"},   "x":[1,2.50]}"#
        let request = try APNsRequest(
            token: Self.token, topic: "com.example.app", pushType: .alert, payload: ByteBuffer(string: raw))
        #expect(request.payload == ByteBuffer(string: raw))
    }
}
