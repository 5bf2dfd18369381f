import SalvoAPNs
import SalvoPrimitives

/// One worker's counters for one campaign on `salvo.campaigns`
/// (schema/campaign-progress.schema.json).
///
/// Keyed by campaign id, worker instance and slice, so a compacted topic keeps the latest record
/// of every (campaign, worker) pair and the records of all workers can be summed. A worker
/// instance is one process run: a restarted worker writes under a new id and never overwrites what
/// its previous run counted.
package struct CampaignProgressRecord: Sendable, Hashable {
    /// The version this code writes; readers accept newer ones (versions only add members).
    package static let schemaVersion = 1

    package var campaignID: String
    /// The worker instance (host, process and a random part).
    package var worker: String
    /// Distinguishes a campaign's counters in one worker after they were dropped for being idle
    /// and started again, so the new count never overwrites the old one.
    package var slice: Int64
    package var counters: CampaignCounters
    /// When this worker counted its first and latest outcome of the campaign.
    package var firstAt: UTCTimestamp
    package var lastAt: UTCTimestamp
    /// When the record was written.
    package var publishedAt: UTCTimestamp

    package init(
        campaignID: String, worker: String, slice: Int64 = 0, counters: CampaignCounters, firstAt: UTCTimestamp,
        lastAt: UTCTimestamp,
        publishedAt: UTCTimestamp
    ) {
        self.campaignID = campaignID
        self.worker = worker
        self.slice = slice
        self.counters = counters
        self.firstAt = firstAt
        self.lastAt = lastAt
        self.publishedAt = publishedAt
    }

    /// What compaction and merging tell records apart by.
    package struct Key: Sendable, Hashable {
        package var campaignID: String
        package var worker: String
        package var slice: Int64
    }

    package var recordKey: Key { Key(campaignID: campaignID, worker: worker, slice: slice) }

    /// The Kafka key: the JSON array `["<campaign_id>","<worker>",<slice>]` (unambiguous whatever
    /// characters the campaign id holds, and readable in kcat).
    package var key: [UInt8] {
        var writer = JSONWriter(capacity: 32 + campaignID.utf8.count + worker.utf8.count)
        writer.beginArray()
        writer.string(campaignID)
        writer.string(worker)
        writer.integer(slice)
        writer.endArray()
        return writer.bytes
    }

    package func encodedValue() -> [UInt8] {
        var writer = JSONWriter(capacity: 320 + campaignID.utf8.count)
        writer.beginObject()
        writer.member("version", Self.schemaVersion)
        writer.member("campaign_id", campaignID)
        writer.member("worker", worker)
        writer.member("slice", slice)
        writer.member("sent", counters.sent)
        writer.member("accepted", counters.accepted)
        writer.key("feedback")
        writer.beginObject()
        for (reason, count) in counters.feedback.sorted(by: { $0.key < $1.key }) {
            writer.member(reason, count)
        }
        writer.endObject()
        writer.member("dead_lettered", counters.deadLettered)
        writer.member("cancelled", counters.cancelled)
        writer.member("retrying", counters.retrying)
        writer.member("first_at_ms", firstAt.millisecondsSince1970)
        writer.member("last_at_ms", lastAt.millisecondsSince1970)
        writer.member("published_at_ms", publishedAt.millisecondsSince1970)
        writer.endObject()
        return writer.bytes
    }

    package static func decode(value: [UInt8]) throws(CampaignRecordError) -> CampaignProgressRecord {
        let what = "progress record"
        let object = try CampaignRecordJSON.object(value, what: what)
        _ = try CampaignRecordJSON.version(object, what: what)
        let campaignID = try CampaignRecordJSON.string(object, "campaign_id", what: what)
        guard CampaignRecordJSON.isValidCampaignID(campaignID) else {
            throw CampaignRecordError("\(what) has an invalid campaign_id")
        }
        func count(_ name: String) throws(CampaignRecordError) -> Int64 {
            try CampaignRecordJSON.integer(object, name, what: what)
        }
        var feedback: [String: Int64] = [:]
        for (reason, value) in (object["feedback"] as? [String: Any]) ?? [:] {
            guard let number = CampaignRecordJSON.integer(value) else {
                throw CampaignRecordError("\(what) has a non-integer feedback count")
            }
            feedback[reason] = number
        }
        let counters = CampaignCounters(
            sent: try count("sent"), accepted: try count("accepted"), feedback: feedback,
            deadLettered: try count("dead_lettered"),
            cancelled: try count("cancelled"), retrying: try count("retrying"))
        return CampaignProgressRecord(
            campaignID: campaignID,
            worker: try CampaignRecordJSON.string(object, "worker", what: what),
            slice: (try? count("slice")) ?? 0,
            counters: counters,
            firstAt: UTCTimestamp(millisecondsSince1970: try count("first_at_ms")),
            lastAt: UTCTimestamp(millisecondsSince1970: try count("last_at_ms")),
            publishedAt: UTCTimestamp(millisecondsSince1970: try count("published_at_ms"))
        )
    }
}
