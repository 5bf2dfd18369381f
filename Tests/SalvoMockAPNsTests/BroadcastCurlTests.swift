import Crypto
import Foundation
import SalvoAPNs
import SalvoMockAPNs
import SalvoTestSupport
import Testing

/// The channel-management listener and the broadcast endpoint, through an independent client:
/// curl 7.88 (libcurl with nghttp2) over TLS with a provider token.
@Suite("Broadcast and channel management through curl --http2")
struct BroadcastCurlTests {
    let directory: String
    let material: MockTLSMaterial
    let tokenKeyArgument: String

    init() throws {
        self.directory =
            FileManager.default.temporaryDirectory.appendingPathComponent("mock-bc-\(UUID().uuidString)").path
        self.material = try MockTLSMaterial.generate(topic: TestPush.topic)
        self.tokenKeyArgument = try self.material.write(to: self.directory)
    }

    struct Answer {
        var status: Int
        var headers: [String: String]
        var body: String
    }

    /// One curl request: `-D -` puts the headers before the body, `-w` the status after it.
    func curl(
        _ method: String, _ url: String, headers: [String], body: String? = nil, jwt: String
    ) async throws -> Answer {
        var arguments = [
            "-sS", "--http2", "--max-time", "10", "--cacert",
            self.directory + "/" + MockTLSMaterial.FileName.caCertificate,
            "-X", method, "-D", "-", "-w", "\n%{http_code}", "-H", "authorization: bearer \(jwt)",
        ]
        for header in headers { arguments += ["-H", header] }
        if let body { arguments += ["--data-binary", body] }
        let output = try await ExternalProcess.run("/usr/bin/curl", arguments + [url])
        #expect(output.status == 0, "curl: \(output.stderr)")
        let lines = output.stdoutText.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }.map(
            String.init)
        var fields: [String: String] = [:]
        var index = 1
        while index < lines.count, !lines[index].isEmpty {
            if let colon = lines[index].firstIndex(of: ":") {
                fields[lines[index][..<colon].lowercased()] = lines[index][lines[index].index(after: colon)...]
                    .trimmingCharacters(in: .whitespaces)
            }
            index += 1
        }
        let rest = lines[(index + 1)...].dropLast()
        return Answer(status: Int(lines.last ?? "") ?? 0, headers: fields, body: rest.joined(separator: "\n"))
    }

    @Test("every operation and every reason, the 10,001st channel, the storage rule, the record file, /stats")
    func everything() async throws {
        defer { try? FileManager.default.removeItem(atPath: self.directory) }
        let jwt = try String(
            contentsOfFile: self.directory + "/" + MockTLSMaterial.FileName.providerToken, encoding: .utf8
        )
        .trimmingCharacters(in: .whitespacesAndNewlines)
        let record = self.directory + "/record.ndjson"
        try await MockFixture.withServer({ configuration in
            configuration.transport = .tls(try self.material.serverTLS())
            configuration.tokenKeys = [try MockTokenKey(argument: self.tokenKeyArgument)]
            configuration.broadcastHost = "127.0.0.1"
            configuration.broadcastFeatureDisabled = ["com.example.off"]
            configuration.broadcastDisallowed = ["com.example.banned"]
            configuration.recordPath = record
        }) { server, addresses in
            let manage = "https://\(addresses.broadcastEndpoint!)/1/apps/\(TestPush.topic)"
            let push = "https://\(addresses.apnsEndpoint)/4/broadcasts/apps/\(TestPush.topic)"
            let requestID = "5b1a4c3e-8f2d-4e6a-9b7c-1d2e3f4a5b6c"

            // Create (the policy as node-apn sends it, a string), read, list.
            let created = try await self.curl(
                "POST", manage + "/channels", headers: ["apns-request-id: \(requestID)"],
                body: #"{"message-storage-policy":"0","push-type":"LiveActivity"}"#, jwt: jwt)
            #expect(created.status == 201)
            #expect(created.headers["apns-request-id"] == requestID)
            let channel = try #require(created.headers["apns-channel-id"])
            #expect(APNsChannelID(channel) != nil)
            #expect(created.body.isEmpty)
            let read = try await self.curl(
                "GET", manage + "/channels", headers: ["apns-channel-id: \(channel)"], jwt: jwt)
            #expect(read.status == 200)
            #expect(read.headers["content-type"] == "application/json")
            #expect(read.body == #"{"message-storage-policy":0,"push-type":"LiveActivity"}"#)
            #expect(
                read.headers["apns-request-id"].map { APNsID(headerValue: Array($0.utf8)) != nil } == true, "generated")
            let list = try await self.curl("GET", manage + "/all-channels", headers: [], jwt: jwt)
            #expect(list.status == 200)
            #expect(list.body == "{\"channels\":[\"\(channel)\"]}")

            // Broadcasts: the no-storage channel takes apns-expiration 0 only.
            let payload = #"{"aps":{"timestamp":1700000000,"event":"update","content-state":{"score":"2-1"}}}"#
            let base = ["apns-channel-id: \(channel)", "apns-push-type: liveactivity", "apns-priority: 10"]
            let sent = try await self.curl(
                "POST", push, headers: base + ["apns-expiration: 0"], body: payload, jwt: jwt)
            #expect(sent.status == 200)
            #expect(sent.headers["apns-request-id"] != nil && sent.headers["apns-unique-id"] != nil)
            let stored = try await self.curl(
                "POST", push, headers: base + ["apns-expiration: 1900000000"], body: payload, jwt: jwt)
            #expect(stored.status == 400)
            #expect(stored.body == #"{"reason":"BadExpirationDate"}"#)
            #expect(stored.headers["content-type"] == "application/json")

            // Every other reason, each from one broken request.
            let broadcastCases: [([String], String, String?, Int, String)] = [
                (["apns-push-type: liveactivity"], push, payload, 400, "MissingChannelId"),
                (["apns-channel-id: !!!", "apns-push-type: liveactivity"], push, payload, 400, "BadChannelId"),
                (
                    ["apns-channel-id: dGVzdC1jaGFubmVs", "apns-push-type: liveactivity"], push, payload, 400,
                    "ChannelNotRegistered"
                ),
                (["apns-channel-id: \(channel)"], push, payload, 400, "MissingPushType"),
                (["apns-channel-id: \(channel)", "apns-push-type: alert"], push, payload, 400, "InvalidPushType"),
                (base.dropLast() + ["apns-priority: 3"], push, payload, 400, "BadPriority"),
                (base + ["apns-request-id: nope"], push, payload, 400, "BadRequestParams"),
                (base, push, "[]", 400, "BadRequestPayload"),
                (base, push, "", 400, "PayloadEmpty"),
                (base, push, "{\"a\":\"" + String(repeating: "y", count: 5_200) + "\"}", 413, "PayloadTooLarge"),
                (
                    base, "https://\(addresses.apnsEndpoint)/4/broadcasts/apps/com.example.off", payload, 400,
                    "FeatureNotEnabled"
                ),
            ]
            for (headers, url, body, status, reason) in broadcastCases {
                let answer = try await self.curl("POST", url, headers: headers, body: body, jwt: jwt)
                #expect(answer.status == status, "\(reason)")
                #expect(answer.body == "{\"reason\":\"\(reason)\"}")
                #expect(answer.headers["content-type"] == "application/json", "\(reason)")
            }
            let managementCases: [(String, String, [String], String?, Int, String)] = [
                ("GET", manage + "/channels", [], nil, 400, "MissingChannelId"),
                ("DELETE", manage + "/channels", ["apns-channel-id: ???"], nil, 400, "BadChannelId"),
                (
                    "POST", manage + "/channels", [], #"{"message-storage-policy":1,"push-type":"Alert"}"#, 400,
                    "InvalidPushType"
                ),
                ("POST", manage + "/channels", [], #"{"message-storage-policy":1}"#, 400, "MissingPushType"),
                (
                    "POST", manage + "/channels", [], #"{"message-storage-policy":9,"push-type":"LiveActivity"}"#, 400,
                    "BadRequestParams"
                ),
                ("POST", manage + "/channels", [], "nope", 400, "BadRequestPayload"),
                ("PATCH", manage + "/channels", [], nil, 405, "MethodNotAllowed"),
                ("GET", manage + "/channelz", [], nil, 404, "BadPath"),
                (
                    "GET", "https://\(addresses.broadcastEndpoint!)/1/apps/com.example.off/all-channels", [], nil, 400,
                    "FeatureNotEnabled"
                ),
            ]
            for (method, url, headers, body, status, reason) in managementCases {
                let answer = try await self.curl(method, url, headers: headers, body: body, jwt: jwt)
                #expect(answer.status == status, "\(reason)")
                #expect(answer.body == "{\"reason\":\"\(reason)\"}")
                #expect(answer.headers["content-type"] == "application/json", "\(reason)")
            }
            let banned = try await self.curl(
                "GET", "https://\(addresses.broadcastEndpoint!)/1/apps/com.example.banned/all-channels", headers: [],
                jwt: jwt)
            #expect(banned.body == #"{"reason":"TopicDisallowed"}"#)
            // A client certificate names its bundle: another bundle in the path is a mismatch.
            let certificate = try await ExternalProcess.run(
                "/usr/bin/curl",
                [
                    "-sS", "--http2", "--max-time", "10", "--cacert",
                    self.directory + "/" + MockTLSMaterial.FileName.caCertificate,
                    "--cert", self.directory + "/" + MockTLSMaterial.FileName.clientCertificate,
                    "--key", self.directory + "/" + MockTLSMaterial.FileName.clientPrivateKey, "-w", "\n%{http_code}",
                    "https://\(addresses.broadcastEndpoint!)/1/apps/com.example.other/all-channels", "--next",
                    "--cacert", self.directory + "/" + MockTLSMaterial.FileName.caCertificate,
                    "--cert", self.directory + "/" + MockTLSMaterial.FileName.clientCertificate,
                    "--key", self.directory + "/" + MockTLSMaterial.FileName.clientPrivateKey, "-w", "\n%{http_code}",
                    "https://\(addresses.broadcastEndpoint!)/1/apps/\(TestPush.topic)/all-channels",
                ])
            #expect(
                certificate.stdoutText.hasPrefix("{\"reason\":\"TopicMismatch\"}\n403{\"channels\":["),
                "\(certificate.stdoutText.prefix(80))")
            let noToken = try await self.curl("GET", manage + "/all-channels", headers: [], jwt: "x.y.z")
            #expect(noToken.status == 403)
            #expect(noToken.body == #"{"reason":"InvalidProviderToken"}"#)

            // The 10,001st channel.
            for _ in 1..<MockChannelStore.appleLimit {
                _ = server.channels.create(bundleID: TestPush.topic, environment: .production, storagePolicy: 1)
            }
            let full = try await self.curl(
                "POST", manage + "/channels", headers: [],
                body: #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#, jwt: jwt)
            #expect(full.status == 400)
            #expect(full.body == #"{"reason":"CannotCreateChannelConfig"}"#)
            #expect(server.stats().channels == MockChannelStore.appleLimit)

            // Delete, then the channel is gone for broadcasts too.
            let deleted = try await self.curl(
                "DELETE", manage + "/channels", headers: ["apns-channel-id: \(channel)"], jwt: jwt)
            #expect(deleted.status == 204)
            let gone = try await self.curl("POST", push, headers: base, body: payload, jwt: jwt)
            #expect(gone.body == #"{"reason":"ChannelNotRegistered"}"#)

            let stats = server.stats()
            #expect(stats.broadcastsAccepted == 1)
            #expect(stats.channelsByApp["production/\(TestPush.topic)"] == MockChannelStore.appleLimit - 1)
            #expect(stats.channelRequestsRejected["CannotCreateChannelConfig"] == 1)
            #expect(stats.rejected("ChannelNotRegistered") == 2)
            server.flushListeners()
            let lines = try String(contentsOfFile: record, encoding: .utf8).split(separator: "\n")
            #expect(lines.count == 1)
            let line = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any]
            #expect(line?["channel_id"] as? String == channel)
            #expect(line?["token"] == nil)
            let digest = SHA256.hash(data: Data(payload.utf8)).map { String(format: "%02x", $0) }.joined()
            #expect(line?["payload_sha256"] as? String == digest)
            #expect(line?["request_id"] as? String == sent.headers["apns-request-id"])
        }
    }
}
