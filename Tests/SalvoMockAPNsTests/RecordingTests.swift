import Crypto
import Foundation
import NIOCore
import SalvoAPNs
import SalvoHTTP2
import SalvoMockAPNs
import Synchronization
import Testing

@Suite("Record file and listeners: proof that nothing was lost or duplicated")
struct RecordingTests {
    final class CountingListener: MockAPNsListener {
        let accepted = Mutex<[MockAcceptedPush]>([])
        let rejected = Mutex<[MockRejectedPush]>([])

        func pushAccepted(_ push: MockAcceptedPush) { self.accepted.withLock { $0.append(push) } }
        func pushRejected(_ push: MockRejectedPush) { self.rejected.withLock { $0.append(push) } }
    }

    @Test("one NDJSON line per accepted notification, with its ids, fields and payload digest")
    func recordFile() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "mock-record-\(UUID().uuidString).ndjson"
        ).path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let listener = CountingListener()
        var pushes: [TestPush] = []
        for index in 0..<50 {
            var push = TestPush().adding("apns-id", UUID().uuidString.lowercased())
            push.token = TestPush.token(index)
            push.body = #"{"aps":{"alert":"n\#(index)"}}"#
            if index % 10 == 0 { push = push.adding("apns-collapse-id", "group \"\(index)\"") }
            pushes.append(push)
        }
        let rejectedPush = TestPush().with("apns-priority", "9")

        try await MockFixture.withClient({ $0.recordPath = path }, listeners: [listener]) { server, client in
            let results = await client.sendAll(pushes.map(\.request) + [rejectedPush.request])
            #expect(results.prefix(50).allSatisfy { (try? $0.get().status) == 200 })
            #expect((try? results.last?.get().status) == 400)
            #expect(server.stats().accepted == 50)
        }

        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 50)
        var seenIDs = Set<String>()
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let apnsID = try #require(object["apns_id"] as? String)
            #expect(seenIDs.insert(apnsID).inserted, "no duplicate apns-id")
            let push = try #require(pushes.first { $0.headers.contains { $0 == ("apns-id", apnsID) } })
            #expect(object["token"] as? String == push.token)
            #expect(object["topic"] as? String == TestPush.topic)
            #expect(object["push_type"] as? String == "alert")
            #expect(object["priority"] as? Int == 10)
            #expect(object["payload_bytes"] as? Int == push.body.utf8.count)
            let digest = SHA256.hash(data: Array(push.body.utf8)).map { String(format: "%02x", $0) }.joined()
            #expect(object["payload_sha256"] as? String == digest)
            let collapse = push.headers.first { $0.0 == "apns-collapse-id" }?.1
            if let collapse {
                #expect(object["collapse_id"] as? String == collapse)
            } else {
                #expect(object["collapse_id"] is NSNull)
            }
            #expect((object["received_at_ms"] as? Int ?? 0) > 1_700_000_000_000)
            #expect(object["connection"] as? Int == 1)
        }
        #expect(seenIDs.count == 50)

        #expect(listener.accepted.withLock { $0.count } == 50)
        let rejections = listener.rejected.withLock { $0 }
        #expect(rejections.count == 1)
        #expect(rejections.first?.reason == .badPriority)
        #expect(rejections.first?.status == 400)
    }

    @Test("recording with the no-validation fast path is refused at configuration time")
    func recordNeedsValidation() {
        var configuration = MockAPNsServer.Configuration()
        configuration.validation = .none
        configuration.recordPath = "/tmp/never-written.ndjson"
        #expect(throws: MockAPNsError.self) { try MockAPNsServer(configuration: configuration) }
    }
}
