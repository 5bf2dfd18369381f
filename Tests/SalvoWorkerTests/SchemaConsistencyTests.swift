import Foundation
import SalvoAPNs
import SalvoKafka
import Testing

@testable import SalvoWorker

/// The published contract (schema/*.json, docs/jobs.md) and the code must not drift apart.
@Suite struct SchemaConsistencyTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    private func json(_ path: String) throws -> [String: Any] {
        let data = try Data(contentsOf: Self.root.appendingPathComponent(path))
        return try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func jobSchemaNamesEveryFieldAndPushType() throws {
        let schema = try json("schema/job.schema.json")
        let properties = try #require(schema["properties"] as? [String: Any])
        #expect(Set(properties.keys) == Set(JobField.allCases.filter { $0 != .retry }.map(\.rawValue)))
        let pushType = try #require(properties["push_type"] as? [String: Any])
        let names = (pushType["enum"] as? [Any])?.compactMap { $0 as? String }
        #expect(names == APNsPushType.allCases.map(\.rawValue))
        #expect(schema["required"] as? [String] == ["id", "app"])
    }

    @Test func feedbackSchemaMatchesTheEncoder() throws {
        let schema = try json("schema/feedback.schema.json")
        let properties = try #require(schema["properties"] as? [String: Any])
        let reason = try #require(properties["reason"] as? [String: Any])
        #expect(
            Set(reason["enum"] as? [String] ?? [])
                == Set(APNsReason.documented.filter(\.producesFeedback).map(\.string)))

        let notification = Fixtures.notification()
        let response = APNsResponse(status: 410, reason: .unregistered, timestampMilliseconds: 1)
        let event = try #require(
            FeedbackEvent(
                notification: notification, response: response, observedAt: UTCTimestamp(millisecondsSince1970: 0)))
        let encoded = try #require(JSONSerialization.jsonObject(with: Data(event.encodedValue())) as? [String: Any])
        #expect(Set(encoded.keys) == Set(properties.keys))
        #expect(Set(schema["required"] as? [String] ?? []).isSubset(of: encoded.keys))
    }

    @Test func checkpointSchemaMatchesTheEncoder() throws {
        let schema = try json("schema/checkpoint.schema.json")
        let properties = try #require(schema["properties"] as? [String: Any])
        let full = PartitionCheckpoint(
            topic: "salvo.jobs", partition: 1, offsets: .init(from: 1, to: 4, open: [2]),
            jobs: [JobCheckpoint(offset: 2, jobID: "j", done: [0..<3])], writtenAtMilliseconds: 5
        ).record(group: "g")
        let encoded = try #require(JSONSerialization.jsonObject(with: Data(full.value)) as? [String: Any])
        #expect(Set(encoded.keys) == Set(properties.keys))
        let jobs = try #require(properties["jobs"] as? [String: Any])
        let jobProperties = try #require((jobs["items"] as? [String: Any])?["properties"] as? [String: Any])
        let job = try #require((encoded["jobs"] as? [[String: Any]])?.first)
        #expect(Set(job.keys) == Set(jobProperties.keys))
        let bare = PartitionCheckpoint(topic: "salvo.jobs", partition: 1, writtenAtMilliseconds: 5).record(group: "g")
        let minimal = try #require(JSONSerialization.jsonObject(with: Data(bare.value)) as? [String: Any])
        #expect(Set(schema["required"] as? [String] ?? []) == Set(minimal.keys))
    }

    @Test func docsListEveryRejectionCode() throws {
        let docs = try String(contentsOf: Self.root.appendingPathComponent("docs/jobs.md"), encoding: .utf8)
        for reason in JobRejection.Reason.all {
            #expect(docs.contains("| `\(reason.code)` |"), "docs/jobs.md lacks \(reason.code)")
        }
        for code in [
            DeadLetterReason.apnsRejectedCode, DeadLetterReason.retriesExhaustedCode,
            DeadLetterReason.invalidRequestCode,
        ] {
            #expect(docs.contains("`\(code)`"), "docs/jobs.md lacks \(code)")
        }
    }
}
