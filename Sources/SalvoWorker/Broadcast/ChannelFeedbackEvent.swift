import SalvoAPNs
import SalvoPrimitives

/// A channel event for the feedback topic: APNs answered `ChannelNotRegistered` to a broadcast,
/// so the channel is gone (deleted, or never created in this environment) and producers should
/// stop using it. Keyed by the channel id, so a compacted topic keeps the latest verdict per
/// channel; told apart from token events by `channel_id` (schema/feedback.schema.json,
/// `$defs/channel_event`).
package struct ChannelFeedbackEvent: Sendable, Hashable {
    package var channelID: APNsChannelID
    package var app: String
    package var bundleID: APNsTopic
    package var environment: APNsEnvironment.Kind
    package var reason: APNsReason
    /// APNs's HTTP status (400).
    package var status: Int
    /// The `apns-request-id` APNs answered with, else the one sent.
    package var requestID: String?
    package var jobID: String
    package var campaignID: String?
    package var observedAt: UTCTimestamp

    /// The event for APNs's answer to `job`; nil unless the answer says the channel is gone
    /// (`ChannelNotRegistered` with the 400 Apple pairs it with).
    package init?(job: BroadcastJob, response: APNsChannelResponse, observedAt: UTCTimestamp) {
        guard let reason = response.reason, reason.producesChannelFeedback, reason.status == response.status else {
            return nil
        }
        self.channelID = job.channelID
        self.app = job.app
        self.bundleID = job.bundleID
        self.environment = job.environment
        self.reason = reason
        self.status = response.status
        self.requestID = response.requestID ?? job.requestID.string
        self.jobID = job.id
        self.campaignID = job.campaignID
        self.observedAt = observedAt
    }

    /// `{"channel_id", "app", "bundle_id", "environment", "apns_reason", "apns_status",
    /// "apns_request_id", "job_id", "campaign_id", "observed_at"}`. Apple's reason and status
    /// have names of their own: a token event's `reason` and `status` take only token reasons.
    package func encodedValue() -> [UInt8] {
        var writer = JSONWriter(capacity: 384)
        writer.beginObject()
        writer.member("channel_id", channelID.string)
        writer.member("app", app)
        writer.key("bundle_id")
        writer.stringBytes(bundleID.headerValue)
        writer.member("environment", environment.rawValue)
        writer.member("apns_reason", reason.string)
        writer.member("apns_status", status)
        writer.key("apns_request_id")
        if let requestID { writer.string(requestID) } else { writer.null() }
        writer.member("job_id", jobID)
        writer.key("campaign_id")
        if let campaignID { writer.string(campaignID) } else { writer.null() }
        writer.member("observed_at", observedAt.rfc3339)
        writer.endObject()
        return writer.bytes
    }

    /// The record for the feedback topic, keyed by the channel id.
    package func record() -> OutgoingRecord {
        OutgoingRecord(key: Array(channelID.string.utf8), value: encodedValue())
    }
}
