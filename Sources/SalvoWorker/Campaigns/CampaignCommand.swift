import SalvoAPNs
import SalvoPrimitives

/// One operator command on `salvo.control` (schema/control.schema.json): cancel, pause or resume
/// a campaign, with who asked, why and when.
///
/// The Kafka key is the campaign id, so a compacted topic keeps the latest command per campaign
/// and every record of a campaign lands on one partition, in order.
package struct CampaignCommand: Sendable, Hashable {
    package enum Action: String, Sendable, Hashable, CaseIterable {
        /// Notifications not yet sent are dropped with the outcome `cancelled`; later jobs complete
        /// without sending.
        case cancel
        /// Nothing of the campaign is sent; its work is held until `resume` (or `cancel`).
        case pause
        /// Lifts a pause (or a cancel, for work that arrives from now on).
        case resume
    }

    /// The version this code writes. Readers accept newer versions and ignore members they do not
    /// know: versions only ever add members.
    package static let schemaVersion = 1

    package var campaignID: String
    package var action: Action
    /// Who asked (a person or a system); free text, for the audit trail.
    package var by: String
    /// Why; free text, may be empty.
    package var reason: String
    /// When the command was given. The latest command per campaign wins, by this time.
    package var at: UTCTimestamp

    package init(campaignID: String, action: Action, by: String, reason: String = "", at: UTCTimestamp) {
        self.campaignID = campaignID
        self.action = action
        self.by = by
        self.reason = reason
        self.at = at
    }

    /// The record key: the campaign id's UTF-8 bytes.
    package var key: [UInt8] { Array(campaignID.utf8) }

    /// `{"version":1,"campaign_id","action","by","reason","at_ms"}`.
    package func encodedValue() -> [UInt8] {
        var writer = JSONWriter(capacity: 128 + campaignID.utf8.count + reason.utf8.count)
        writer.beginObject()
        writer.member("version", Self.schemaVersion)
        writer.member("campaign_id", campaignID)
        writer.member("action", action.rawValue)
        writer.member("by", by)
        writer.member("reason", reason)
        writer.member("at_ms", at.millisecondsSince1970)
        writer.endObject()
        return writer.bytes
    }

    /// Reads a record. The key, when present, must equal the campaign id: compaction works on
    /// the key, so a record filed under another key would outlive or hide the real state.
    package static func decode(key: [UInt8]?, value: [UInt8]) throws(CampaignRecordError) -> CampaignCommand {
        let what = "control record"
        let object = try CampaignRecordJSON.object(value, what: what)
        _ = try CampaignRecordJSON.version(object, what: what)
        let campaignID = try CampaignRecordJSON.string(object, "campaign_id", what: what)
        guard CampaignRecordJSON.isValidCampaignID(campaignID) else {
            throw CampaignRecordError("\(what) has an invalid campaign_id (1–256 bytes, no control characters)")
        }
        if let key, key != Array(campaignID.utf8) {
            throw CampaignRecordError("\(what) for campaign \(campaignID) is filed under another key")
        }
        let actionName = try CampaignRecordJSON.string(object, "action", what: what)
        guard let action = Action(rawValue: actionName) else {
            throw CampaignRecordError("\(what) for campaign \(campaignID) has the unknown action \(actionName)")
        }
        return CampaignCommand(
            campaignID: campaignID,
            action: action,
            by: (object["by"] as? String) ?? "",
            reason: (object["reason"] as? String) ?? "",
            at: UTCTimestamp(millisecondsSince1970: try CampaignRecordJSON.integer(object, "at_ms", what: what))
        )
    }
}
