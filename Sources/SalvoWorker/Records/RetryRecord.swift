import NIOCore
import SalvoAPNs
import SalvoPrimitives

/// Notifications handed to the retry topic because the worker cannot hold them (its retry memory
/// is full, the delay is long, or it is shutting down): one job's notifications that share payload,
/// headers, attempt and due time, written as a job with a `retry` member that
/// ``RetryRecordDecoder`` reads back.
///
/// `{…job members…, "tokens": [...], "retry": {"attempt": N, "due_at_ms": N}}`
package struct RetryRecord: Sendable, Equatable {
    package var job: JobReference
    package var headers: APNsRequestHeaders
    package var payload: ByteBuffer
    package var tokens: [DeviceToken]
    /// The attempt the next send will be.
    package var attempt: Int
    /// Not to be sent before this time.
    package var dueAt: UTCTimestamp
    /// The tokens' ``PushNotification/index`` in their job, for its checkpoint (not written).
    var tokenIndices: [Int32] = []

    package init(
        job: JobReference, headers: APNsRequestHeaders, payload: ByteBuffer, tokens: [DeviceToken], attempt: Int,
        dueAt: UTCTimestamp
    ) {
        self.job = job
        self.headers = headers
        self.payload = payload
        self.tokens = tokens
        self.attempt = attempt
        self.dueAt = dueAt
    }

    /// Equal when they write the same record (the checkpoint's indexes are not written).
    package static func == (lhs: RetryRecord, rhs: RetryRecord) -> Bool {
        lhs.job == rhs.job && lhs.headers == rhs.headers && lhs.payload == rhs.payload && lhs.tokens == rhs.tokens
            && lhs.attempt == rhs.attempt && lhs.dueAt == rhs.dueAt
    }

    private struct GroupKey: Hashable {
        var job: JobReference
        var headers: APNsRequestHeaders
        var payload: ByteBuffer
        var attempt: Int
    }

    /// Groups notifications into as few records as possible, in first-seen order. Tokens with a
    /// spliced badge have their own payload and so their own record.
    package static func grouping(_ notifications: some Sequence<PushNotification>, dueAt: UTCTimestamp) -> [RetryRecord]
    {
        var records: [RetryRecord] = []
        var positions: [GroupKey: Int] = [:]
        for notification in notifications {
            let key = GroupKey(
                job: notification.job, headers: notification.headers, payload: notification.payload,
                attempt: notification.attempt)
            if let position = positions[key] {
                records[position].tokens.append(notification.token)
                records[position].tokenIndices.append(notification.index)
            } else {
                positions[key] = records.count
                records.append(
                    RetryRecord(
                        job: notification.job,
                        headers: notification.headers,
                        payload: notification.payload,
                        tokens: [notification.token],
                        attempt: notification.attempt,
                        dueAt: dueAt
                    ))
                records[records.count - 1].tokenIndices = [notification.index]
            }
        }
        return records
    }

    /// The record to produce, keyed by job id. Headers repeat the due time (`salvo-due-at-ms`) so a
    /// consumer can decide to wait without parsing the value.
    package func record() -> OutgoingRecord {
        let headers = [
            RecordHeader(name: "salvo-due-at-ms", text: String(dueAt.millisecondsSince1970)),
            RecordHeader(name: "salvo-attempt", text: String(attempt)),
            RecordHeader(name: "salvo-app", text: job.app),
            RecordHeader(name: "salvo-source-topic", text: job.source.topic),
            RecordHeader(name: "salvo-source-partition", text: String(job.source.partition)),
            RecordHeader(name: "salvo-source-offset", text: String(job.source.offset)),
        ]
        return OutgoingRecord(key: Array(job.id.utf8), value: encodedValue(), headers: headers)
    }

    func encodedValue() -> [UInt8] {
        var writer = JSONWriter(capacity: payload.readableBytes + 256 + tokens.count * 68)
        writer.beginObject()
        writer.jobMembers(job, headers: headers, payload: payload) { writer in
            writer.key("tokens")
            writer.beginArray()
            for token in tokens { writer.stringBytes(token.hexBytes) }
            writer.endArray()
        }
        writer.key("retry")
        writer.beginObject()
        writer.member("attempt", attempt)
        writer.member("due_at_ms", dueAt.millisecondsSince1970)
        writer.endObject()
        writer.endObject()
        return writer.bytes
    }
}
