import NIOCore
import SalvoAPNs
import SalvoPrimitives

extension JSONWriter {
    /// Writes the members of a job (schema/job.schema.json) for notifications that were already
    /// decoded, so dead letters and retry records can be published back to a jobs topic as they
    /// are. Every header is written explicitly (topic, priority, environment), so the record means
    /// the same thing even if the app's defaults change meanwhile. The payload bytes pass through.
    /// `tokens` writes the `token` or `tokens` member. The object is left open for extra members.
    mutating func jobMembers(
        _ job: JobReference,
        headers: APNsRequestHeaders,
        payload: ByteBuffer,
        tokens: (inout JSONWriter) -> Void
    ) {
        member("id", job.id)
        member("app", job.app)
        tokens(&self)
        key("payload")
        rawValue(payload)
        member("push_type", headers.pushType.rawValue)
        member("priority", headers.priority.rawValue)
        key("topic")
        stringBytes(headers.topic.headerValue)
        member("expiration", headers.expiration?.secondsSince1970)
        if let collapseID = headers.collapseID {
            key("collapse_id")
            stringBytes(collapseID.headerValue)
        }
        member("environment", job.environment.rawValue)
        member("campaign_id", job.campaignID)
    }
}
