import SalvoAPNs
import SalvoPrimitives

/// An invalid-token event for the feedback topic: APNs said this device token is dead
/// (410 Unregistered, ExpiredToken) or wrong (400 BadDeviceToken, DeviceTokenNotForTopic), so the
/// producer should stop sending to it. Keyed by token, so a compacted topic keeps the latest
/// verdict per token. Schema: schema/feedback.schema.json.
package struct FeedbackEvent: Sendable, Hashable {
    package var token: DeviceToken
    package var app: String
    package var topic: APNsTopic
    package var environment: APNsEnvironment.Kind
    package var reason: APNsReason
    /// APNs's HTTP status (410 or 400).
    package var status: Int
    /// For 410: when APNs learnt the token stopped being valid. A producer should ignore the event
    /// if the token was registered again after this time.
    package var apnsTimestampMilliseconds: Int64?
    /// The id APNs answered with, else the id that was sent.
    package var apnsID: APNsID?
    package var jobID: String
    package var campaignID: String?
    package var observedAt: UTCTimestamp

    package init(
        token: DeviceToken,
        app: String,
        topic: APNsTopic,
        environment: APNsEnvironment.Kind,
        reason: APNsReason,
        status: Int,
        apnsTimestampMilliseconds: Int64? = nil,
        apnsID: APNsID? = nil,
        jobID: String,
        campaignID: String? = nil,
        observedAt: UTCTimestamp
    ) {
        self.token = token
        self.app = app
        self.topic = topic
        self.environment = environment
        self.reason = reason
        self.status = status
        self.apnsTimestampMilliseconds = apnsTimestampMilliseconds
        self.apnsID = apnsID
        self.jobID = jobID
        self.campaignID = campaignID
        self.observedAt = observedAt
    }

    /// The event for APNs's answer to `notification`; nil when the answer is not about the token.
    package init?(notification: PushNotification, response: APNsResponse, observedAt: UTCTimestamp) {
        guard response.producesFeedback, let reason = response.reason else { return nil }
        self.init(
            token: notification.token,
            app: notification.job.app,
            topic: notification.headers.topic,
            environment: notification.job.environment,
            reason: reason,
            status: response.status,
            apnsTimestampMilliseconds: response.timestampMilliseconds,
            apnsID: response.apnsID ?? notification.apnsID,
            jobID: notification.job.id,
            campaignID: notification.job.campaignID,
            observedAt: observedAt
        )
    }

    /// `{"token", "app", "topic", "environment", "reason", "status", "apns_timestamp_ms"?,
    /// "apns_id", "job_id", "campaign_id", "observed_at"}`; `campaign_id` and `apns_id` are null
    /// when unknown, `apns_timestamp_ms` is left out.
    package func encodedValue() -> [UInt8] {
        var writer = JSONWriter(capacity: 384)
        writer.beginObject()
        writer.key("token")
        writer.stringBytes(token.hexBytes)
        writer.member("app", app)
        writer.key("topic")
        writer.stringBytes(topic.headerValue)
        writer.member("environment", environment.rawValue)
        writer.member("reason", reason.string)
        writer.member("status", status)
        writer.member("apns_timestamp_ms", apnsTimestampMilliseconds)
        writer.key("apns_id")
        if let apnsID { writer.string(apnsID.description) } else { writer.null() }
        writer.member("job_id", jobID)
        writer.key("campaign_id")
        if let campaignID { writer.string(campaignID) } else { writer.null() }
        writer.member("observed_at", observedAt.rfc3339)
        writer.endObject()
        return writer.bytes
    }

    /// The record for the feedback topic, keyed by the token's lowercase hex.
    package func record() -> OutgoingRecord {
        OutgoingRecord(key: Array(token.hexBytes), value: encodedValue())
    }
}
