import NIOCore
import SalvoAPNs
import SalvoHTTP2
import SalvoMockAPNs
import Testing

@Suite("Apple's request rules over real HTTP/2 (the project's client, h2c)")
struct ValidationTests {
    static let push = TestPush()

    /// (what is broken, the request, Apple's status, Apple's reason)
    static let cases: [(String, TestPush, Int, APNsReason)] = {
        var getPush = push
        getPush.method = "GET"
        var badPath = push
        badPath.path = "/3/devices/\(TestPush.validToken)"
        var noToken = push
        noToken.path = "/3/device/"
        var shortToken = push
        shortToken.token = "abcd"
        var notHex = push
        notHex.token = String(repeating: "zz", count: 32)
        var empty = push
        empty.body = ""
        var tooLarge = push
        tooLarge.body = "{\"a\":\"" + String(repeating: "x", count: 4089) + "\"}"
        var voipTooLarge = push.with("apns-topic", "com.example.salvo.voip").with("apns-push-type", "voip")
        voipTooLarge.body = "{\"a\":\"" + String(repeating: "x", count: 5113) + "\"}"
        return [
            ("method", getPush, 405, .methodNotAllowed),
            ("path", badPath, 404, .badPath),
            ("missing token", noToken, 400, .missingDeviceToken),
            ("short token", shortToken, 400, .badDeviceToken),
            ("non-hex token", notHex, 400, .badDeviceToken),
            ("missing topic", push.with("apns-topic", nil), 400, .missingTopic),
            ("malformed topic", push.with("apns-topic", "com.example salvo"), 400, .badTopic),
            ("VoIP without .voip suffix", push.with("apns-push-type", "voip"), 400, .badTopic),
            ("unknown push type", push.with("apns-push-type", "telegram"), 400, .invalidPushType),
            ("priority 7", push.with("apns-priority", "7"), 400, .badPriority),
            ("background at priority 10", push.with("apns-push-type", "background"), 400, .badPriority),
            ("expiration not a number", push.adding("apns-expiration", "tomorrow"), 400, .badExpirationDate),
            (
                "collapse id of 65 bytes", push.adding("apns-collapse-id", String(repeating: "c", count: 65)), 400,
                .badCollapseId
            ),
            ("apns-id not a UUID", push.adding("apns-id", "not-a-uuid"), 400, .badMessageId),
            ("apns-topic twice", push.adding("apns-topic", TestPush.topic), 400, .duplicateHeaders),
            ("empty payload", empty, 400, .payloadEmpty),
            ("4097-byte alert", tooLarge, 413, .payloadTooLarge),
            ("5121-byte VoIP", voipTooLarge, 413, .payloadTooLarge),
        ]
    }()

    @Test("each broken rule gets Apple's status and reason", arguments: 0..<cases.count)
    func rule(index: Int) async throws {
        let (name, push, status, reason) = Self.cases[index]
        try await MockFixture.withClient { server, client in
            let response = try await client.send(push.request)
            #expect(response.status == status, "\(name)")
            #expect(response.reason == reason, "\(name)")
            #expect(response.apnsID.flatMap(APNsID.init) != nil, "\(name): every answer carries an apns-id")
            #expect(server.stats().rejected(reason.string) == 1, "\(name)")
        }
    }

    @Test("valid requests: apns-id echoed or generated; limits are inclusive; VoIP may carry 5120 bytes")
    func accepted() async throws {
        try await MockFixture.withClient { server, client in
            let id = "6f1e2c3d-4b5a-4c6d-8e7f-0a1b2c3d4e5f"
            let echoed = try await client.send(Self.push.adding("apns-id", id.uppercased()).request)
            #expect(echoed.status == 200)
            #expect(echoed.apnsID == id)
            #expect(echoed.body == nil)
            #expect(echoed.headers.first(name: "apns-unique-id") == nil, "production answers carry no apns-unique-id")

            let generated = try await client.send(Self.push.request)
            #expect(generated.status == 200)
            #expect(generated.apnsID.flatMap(APNsID.init)?.version == 4)

            var largest = Self.push
            largest.body = "{\"a\":\"" + String(repeating: "x", count: 4088) + "\"}"
            #expect(largest.body.utf8.count == 4096)
            #expect(try await client.send(largest.request).status == 200)

            var voip = Self.push.with("apns-topic", "com.example.salvo.voip").with("apns-push-type", "voip")
            voip.body = "{\"a\":\"" + String(repeating: "x", count: 5112) + "\"}"
            #expect(voip.body.utf8.count == 5120)
            #expect(try await client.send(voip.request).status == 200)

            let background = Self.push.with("apns-push-type", "background").with("apns-priority", "5")
            #expect(try await client.send(background.request).status == 200)
            #expect(
                try await client.send(Self.push.with("apns-push-type", nil).with("apns-priority", nil).request).status
                    == 200)

            let stats = server.stats()
            #expect(stats.accepted == 6)
            #expect(stats.rejectedTotal == 0)
            #expect(stats.streamsTotal == 6)
            #expect(stats.connectionsOpen == 1)
        }
    }

    @Test("sandbox answers carry a fresh apns-unique-id")
    func sandbox() async throws {
        try await MockFixture.withClient({ $0.environment = .sandbox }) { _, client in
            let first = try await client.send(TestPush().request)
            let second = try await client.send(TestPush().request)
            let firstUnique = try #require(first.headers.first(name: "apns-unique-id").flatMap(APNsID.init))
            let secondUnique = try #require(second.headers.first(name: "apns-unique-id").flatMap(APNsID.init))
            #expect(firstUnique != secondUnique)
        }
    }

    @Test("an additional rule runs after Apple's rules and can reject with any reason")
    func additionalRule() async throws {
        let forbidden = try DeviceToken(hex: TestPush.token(7))
        try await MockFixture.withClient({ configuration in
            configuration.additionalRule = { request in request.token == forbidden ? .deviceTokenNotForTopic : nil }
        }) { _, client in
            var push = TestPush()
            push.token = TestPush.token(7)
            let rejected = try await client.send(push.request)
            #expect(rejected.status == 400)
            #expect(rejected.reason == .deviceTokenNotForTopic)
            push.token = TestPush.token(8)
            #expect(try await client.send(push.request).status == 200)
        }
    }

    @Test("the no-validation fast path answers 200 to anything and echoes apns-id bytes")
    func fastPath() async throws {
        try await MockFixture.withClient({ $0.validation = .none }) { server, client in
            var broken = TestPush().with("apns-topic", nil).adding("apns-id", "anything-goes")
            broken.path = "/nonsense"
            let response = try await client.send(broken.request)
            #expect(response.status == 200)
            #expect(response.apnsID == "anything-goes")
            let generated = try await client.send(TestPush().request)
            #expect(generated.apnsID.flatMap(APNsID.init) != nil)
            #expect(server.stats().accepted == 2)
        }
    }
}
