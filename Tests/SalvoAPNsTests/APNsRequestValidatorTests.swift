import NIOCore
import SalvoAPNs
import Testing

@Suite struct APNsRequestValidatorTests {
    static let tokenHex = String(repeating: "ab", count: 32)
    static let path = "/3/device/" + tokenHex

    static func headers(_ pairs: [(String, String)]) -> [APNsHeaderField] {
        pairs.map { APNsHeaderField(name: $0.0, value: $0.1) }
    }

    static let valid: [(String, String)] = [
        ("apns-topic", "com.example.app"), ("apns-push-type", "alert"), ("apns-priority", "10"),
    ]

    func reason(
        _ validator: APNsRequestValidator = APNsRequestValidator(),
        method: String = "POST",
        path: String = APNsRequestValidatorTests.path,
        headers: [(String, String)] = APNsRequestValidatorTests.valid,
        bodySize: Int = 20
    ) -> APNsReason? {
        validator.validate(
            method: Array(method.utf8), path: Array(path.utf8), headers: Self.headers(headers), bodySize: bodySize)
    }

    func replacing(_ name: String, with value: String?) -> [(String, String)] {
        var headers = Self.valid.filter { $0.0 != name }
        if let value { headers.append((name, value)) }
        return headers
    }

    @Test func acceptsAValidRequestAndReportsItsFields() throws {
        let id = APNsID.random()
        let headers =
            Self.valid + [
                ("apns-id", id.description), ("apns-expiration", "0"), ("apns-collapse-id", "c1"),
                ("authorization", "bearer x.y.z"),
            ]
        let verdict = APNsRequestValidator().inspect(
            method: Array("POST".utf8), path: Array(Self.path.utf8), headers: Self.headers(headers), bodySize: 100
        )
        guard case .accepted(let request) = verdict else {
            Issue.record("rejected: \(verdict)")
            return
        }
        #expect(request.token == (try DeviceToken(hex: Self.tokenHex)))
        #expect(request.topic == "com.example.app")
        #expect(request.pushType == .alert)
        #expect(request.priority == .immediate)
        #expect(request.apnsID == id)
        #expect(request.expiration == .immediately)
        #expect(request.collapseID == (try APNsCollapseID("c1")))
        #expect(request.authorization == Array("bearer x.y.z".utf8))
        #expect(request.bodySize == 100)
    }

    @Test func methodAndPath() {
        #expect(reason(method: "GET") == .methodNotAllowed)
        #expect(reason(path: "/3/devices/" + Self.tokenHex) == .badPath)
        #expect(reason(path: "/3/device/") == .missingDeviceToken)
        #expect(reason(path: "/3/device/1234") == .badDeviceToken)
    }

    @Test func duplicateHeaders() {
        #expect(reason(headers: Self.valid + [("apns-topic", "com.example.app")]) == .duplicateHeaders)
        #expect(reason(headers: Self.valid + [("authorization", "a"), ("authorization", "b")]) == .duplicateHeaders)
    }

    @Test func topicRules() {
        #expect(reason(headers: replacing("apns-topic", with: nil)) == .missingTopic)
        #expect(
            reason(
                APNsRequestValidator(topicWhenMissing: "com.example.app"), headers: replacing("apns-topic", with: nil))
                == nil)
        #expect(reason(headers: replacing("apns-topic", with: "")) == .badTopic)
        #expect(reason(headers: replacing("apns-topic", with: "com example")) == .badTopic)
        let onlyOneTopic = APNsRequestValidator(isTopicAllowed: { $0 == "com.example.other" })
        #expect(reason(onlyOneTopic) == .topicDisallowed)
    }

    @Test func pushTypeAndPriorityRules() {
        #expect(reason(headers: replacing("apns-push-type", with: "banner")) == .invalidPushType)
        #expect(reason(headers: replacing("apns-priority", with: "7")) == .badPriority)
        // Background with 10, or with no priority (Apple's default is 10).
        let background = [("apns-topic", "com.example.app"), ("apns-push-type", "background")]
        #expect(reason(headers: background + [("apns-priority", "10")]) == .badPriority)
        #expect(reason(headers: background) == .badPriority)
        #expect(reason(headers: background + [("apns-priority", "5")]) == nil)
        #expect(reason(headers: [("apns-topic", "com.example.app"), ("apns-push-type", "voip")]) == .badTopic)
        #expect(
            reason(headers: [
                ("apns-topic", "com.example.app.voip-ptt"), ("apns-push-type", "pushtotalk"), ("apns-priority", "5"),
            ]) == .badPriority)
        #expect(
            reason(headers: [
                ("apns-topic", "com.example.app.location-query"), ("apns-push-type", "location"),
                ("apns-priority", "1"),
            ]) == .badPriority)
    }

    @Test func optionalHeaderShapes() {
        #expect(reason(headers: Self.valid + [("apns-expiration", "soon")]) == .badExpirationDate)
        #expect(
            reason(headers: Self.valid + [("apns-collapse-id", String(repeating: "x", count: 65))]) == .badCollapseId)
        #expect(reason(headers: Self.valid + [("apns-id", "not-a-uuid")]) == .badMessageId)
    }

    @Test func bodySizeByPushType() {
        #expect(reason(bodySize: 0) == .payloadEmpty)
        #expect(reason(bodySize: 4096) == nil)
        #expect(reason(bodySize: 4097) == .payloadTooLarge)
        let voip = [("apns-topic", "com.example.app.voip"), ("apns-push-type", "voip")]
        #expect(reason(headers: voip, bodySize: 5120) == nil)
        #expect(reason(headers: voip, bodySize: 5121) == .payloadTooLarge)
        // Without apns-push-type the VoIP topic still implies the VoIP limit.
        #expect(reason(headers: [("apns-topic", "com.example.app.voip")], bodySize: 5000) == nil)
    }

    @Test func whatTheClientSendsPassesTheServerRules() throws {
        let token = try DeviceToken(hex: Self.tokenHex)
        for type in APNsPushType.allCases {
            let headers = try APNsRequestHeaders(topic: type.topic(forBundleID: "com.example.app"), pushType: type)
            let request = try APNsRequest(
                token: token, headers: headers, apnsID: .random(), payload: .init(string: "{}"))
            let fields = request.headerFields(authorization: APNsAuthorization(jwt: "a.b.c", issuedAt: 0))
            let verdict = APNsRequestValidator().validate(
                method: APNsRequest.method, path: request.path, headers: fields, bodySize: 2)
            #expect(verdict == nil, "\(type)")
        }
    }
}
