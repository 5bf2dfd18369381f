import Foundation
import Testing

@testable import SalvoWorker

/// The records of salvo.control and salvo.campaigns, against their schema files.
@Suite struct CampaignRecordCodecTests {
    private func schema(_ name: String) throws -> [String: Any] {
        let url = SchemaConsistencyTests.root.appendingPathComponent("schema/\(name)")
        return try #require(JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    }

    private func object(_ bytes: [UInt8]) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    @Test func commandRoundTripsAndMatchesItsSchema() throws {
        let command = CampaignCommand(
            campaignID: "spring-sale \"2024\"/ü", action: .pause, by: "ops@example.com", reason: "wrong\naudience",
            at: UTCTimestamp(millisecondsSince1970: 1_714_564_800_123))
        let value = command.encodedValue()
        #expect(try CampaignCommand.decode(key: command.key, value: value) == command)
        #expect(try CampaignCommand.decode(key: nil, value: value) == command)

        let schema = try schema("control.schema.json")
        let properties = try #require(schema["properties"] as? [String: Any])
        #expect(Set(try object(value).keys) == Set(properties.keys))
        #expect(Set(schema["required"] as? [String] ?? []).isSubset(of: try object(value).keys))
        let action = try #require(properties["action"] as? [String: Any])
        #expect(Set(action["enum"] as? [String] ?? []) == Set(CampaignCommand.Action.allCases.map(\.rawValue)))
    }

    @Test func commandReaderRefusesWhatItCannotTrust() {
        let good = CampaignCommand(
            campaignID: "spring", action: .cancel, by: "a", at: UTCTimestamp(millisecondsSince1970: 1))
        #expect(throws: CampaignRecordError.self) {
            try CampaignCommand.decode(key: Array("other".utf8), value: good.encodedValue())
        }
        for bad in [
            #"not json"#, #"[]"#, #"{"version":1,"campaign_id":"x","action":"explode","at_ms":1}"#,
            #"{"version":1,"campaign_id":"","action":"cancel","at_ms":1}"#,
            #"{"version":1,"campaign_id":"x","action":"cancel"}"#,
            #"{"campaign_id":"x","action":"cancel","at_ms":1}"#,
            #"{"version":0,"campaign_id":"x","action":"cancel","at_ms":1}"#,
            #"{"version":1,"campaign_id":"a\u0007b","action":"cancel","at_ms":1}"#,
        ] {
            #expect(throws: CampaignRecordError.self, "\(bad)") {
                try CampaignCommand.decode(key: nil, value: Array(bad.utf8))
            }
        }
    }

    @Test func newerVersionsWithExtraMembersAreRead() throws {
        let text = #"{"version":2,"campaign_id":"x","action":"resume","by":"b","reason":"","at_ms":7,"ticket":"OPS-1"}"#
        let command = try CampaignCommand.decode(key: Array("x".utf8), value: Array(text.utf8))
        #expect(command.action == .resume && command.at.millisecondsSince1970 == 7)
    }

    @Test func progressRecordRoundTripsAndMatchesItsSchema() throws {
        var counters = CampaignCounters()
        counters.count(.accepted, times: 10)
        counters.count(.feedback(reason: "Unregistered"), times: 2)
        counters.count(.deadLettered(afterSending: false))
        counters.count(.cancelled, times: 5)
        counters.count(.retryScheduled, times: 3)
        let record = CampaignProgressRecord(
            campaignID: "spring", worker: "host-1-abc", slice: 2, counters: counters,
            firstAt: UTCTimestamp(millisecondsSince1970: 1),
            lastAt: UTCTimestamp(millisecondsSince1970: 2), publishedAt: UTCTimestamp(millisecondsSince1970: 3))
        #expect(try CampaignProgressRecord.decode(value: record.encodedValue()) == record)
        #expect(String(decoding: record.key, as: UTF8.self) == #"["spring","host-1-abc",2]"#)

        let schema = try schema("campaign-progress.schema.json")
        let properties = try #require(schema["properties"] as? [String: Any])
        let encoded = try object(record.encodedValue())
        #expect(Set(encoded.keys) == Set(properties.keys))
        #expect(Set(schema["required"] as? [String] ?? []).isSubset(of: encoded.keys))
    }
}
