import NIOCore
import SalvoAPNs
import SalvoPrimitives

/// A record for the dead-letter topic: something that can never be delivered, with why.
///
/// The value is always something that can be published back to a jobs topic once the cause is
/// fixed: the original message unchanged for a rejected job, or a one-token job for a single
/// notification. Everything else travels in `salvo-…` headers (docs/jobs.md lists them), keyed by
/// job id so a job's dead letters stay in order on one partition.
package struct DeadLetterRecord: Sendable, Equatable {
    package enum Subject: Sendable, Equatable {
        /// The original Kafka message of a job that could not be decoded or validated.
        case job(ByteBuffer)
        /// One notification, written as a one-token job.
        case notification(DeadLetterNotification)
    }

    package var subject: Subject
    package var reason: DeadLetterReason
    /// Sends attempted before giving up (0 when rejected before sending).
    package var attempts: Int
    package var app: String?
    package var jobID: String?
    /// The record the subject came from.
    package var source: SourcePosition?
    package var failedAt: UTCTimestamp

    package init(
        subject: Subject,
        reason: DeadLetterReason,
        attempts: Int,
        app: String?,
        jobID: String?,
        source: SourcePosition?,
        failedAt: UTCTimestamp
    ) {
        self.subject = subject
        self.reason = reason
        self.attempts = attempts
        self.app = app
        self.jobID = jobID
        self.source = source
        self.failedAt = failedAt
    }

    /// A message the decoder rejected as a whole.
    package static func rejectedJob(
        _ message: ByteBuffer, _ rejection: JobRejection, source: SourcePosition?, at time: UTCTimestamp
    ) -> DeadLetterRecord {
        DeadLetterRecord(
            subject: .job(message), reason: DeadLetterReason(rejection), attempts: 0, app: rejection.app,
            jobID: rejection.jobID, source: source, failedAt: time)
    }

    /// One malformed token of a job that otherwise proceeds.
    package static func rejectedToken(
        _ rejection: TokenRejection, of job: Job, source: SourcePosition, at time: UTCTimestamp
    ) -> DeadLetterRecord {
        let notification = DeadLetterNotification(
            job: job.reference(source: source), token: rejection.text, headers: job.headers, payload: job.payload)
        return DeadLetterRecord(
            subject: .notification(notification), reason: DeadLetterReason(rejection), attempts: 0, app: job.app,
            jobID: job.id, source: source, failedAt: time)
    }

    /// A notification that failed for good after `notification.attempt` attempts.
    package static func failedNotification(
        _ notification: PushNotification, reason: DeadLetterReason, at time: UTCTimestamp
    ) -> DeadLetterRecord {
        DeadLetterRecord(
            subject: .notification(DeadLetterNotification(notification)),
            reason: reason,
            attempts: notification.attempt,
            app: notification.job.app,
            jobID: notification.job.id,
            source: notification.job.source,
            failedAt: time
        )
    }

    /// The record to produce.
    package func record() -> OutgoingRecord {
        OutgoingRecord(key: jobID.map { Array($0.utf8) }, value: encodedValue(), headers: headers())
    }

    func encodedValue() -> [UInt8] {
        switch subject {
        case .job(let message):
            return Array(message.readableBytesView)
        case .notification(let notification):
            var writer = JSONWriter(capacity: notification.payload.readableBytes + 256)
            writer.beginObject()
            writer.jobMembers(notification.job, headers: notification.headers, payload: notification.payload) {
                writer in
                writer.member("token", notification.token)
            }
            writer.endObject()
            return writer.bytes
        }
    }

    func headers() -> [RecordHeader] {
        var headers = [
            RecordHeader(name: "salvo-kind", text: subject.kind),
            RecordHeader(name: "salvo-reason", text: reason.code),
            RecordHeader(name: "salvo-message", text: reason.message),
            RecordHeader(name: "salvo-attempts", text: String(attempts)),
            RecordHeader(name: "salvo-failed-at", text: failedAt.rfc3339),
        ]
        func add(_ name: String, _ value: String?) {
            if let value { headers.append(RecordHeader(name: name, text: value)) }
        }
        add("salvo-app", app)
        add("salvo-job-id", jobID)
        add("salvo-apns-status", reason.apnsStatus.map(String.init))
        add("salvo-apns-reason", reason.apnsReason)
        add("salvo-source-topic", source?.topic)
        add("salvo-source-partition", source.map { String($0.partition) })
        add("salvo-source-offset", source.map { String($0.offset) })
        return headers
    }
}

extension DeadLetterRecord.Subject {
    /// The `salvo-kind` header: `job` or `notification`.
    var kind: String {
        switch self {
        case .job: return "job"
        case .notification: return "notification"
        }
    }
}
