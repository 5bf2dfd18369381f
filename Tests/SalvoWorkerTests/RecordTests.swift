import Foundation
import NIOCore
import SalvoAPNs
import Testing

@testable import SalvoWorker

@Suite struct RecordTests {
    static let observed = UTCTimestamp(millisecondsSince1970: 1_714_564_800_123)

    private func object(_ bytes: [UInt8]) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    @Test func timestampsFormatAsRFC3339() {
        #expect(UTCTimestamp(millisecondsSince1970: 0).rfc3339 == "1970-01-01T00:00:00.000Z")
        #expect(Self.observed.rfc3339 == "2024-05-01T12:00:00.123Z")
        #expect(UTCTimestamp(millisecondsSince1970: 951_782_400_000).rfc3339 == "2000-02-29T00:00:00.000Z")
        #expect(UTCTimestamp(millisecondsSince1970: -1).rfc3339 == "1969-12-31T23:59:59.999Z")
        #expect(UTCTimestamp(millisecondsSince1970: 4_102_444_799_999).rfc3339 == "2099-12-31T23:59:59.999Z")
        #expect(
            UTCTimestamp(millisecondsSince1970: 1000).advanced(by: .milliseconds(1500)).millisecondsSince1970 == 2500)
        let now = UTCTimestamp.now().millisecondsSince1970
        #expect(now > 1_700_000_000_000)
    }

    @Test func feedbackEventMatchesTheSchema() throws {
        let notification = Fixtures.notification(5)
        let response = APNsResponse(
            status: 410, apnsID: nil, reason: .unregistered, timestampMilliseconds: 1_700_000_000_000)
        let event = try #require(
            FeedbackEvent(notification: notification, response: response, observedAt: Self.observed))
        let record = event.record()
        #expect(record.key == Array(Fixtures.tokenHex(5).utf8))
        let json = try object(record.value)
        #expect(json["token"] as? String == Fixtures.tokenHex(5))
        #expect(json["app"] as? String == "news")
        #expect(json["topic"] as? String == "com.example.news")
        #expect(json["environment"] as? String == "production")
        #expect(json["reason"] as? String == "Unregistered")
        #expect(json["status"] as? Int == 410)
        #expect(json["apns_timestamp_ms"] as? Int64 == 1_700_000_000_000)
        #expect(json["apns_id"] as? String == notification.apnsID.description)
        #expect(json["job_id"] as? String == "job-1")
        #expect(json["campaign_id"] as? String == "spring")
        #expect(json["observed_at"] as? String == "2024-05-01T12:00:00.123Z")
        #expect(
            Set(json.keys) == [
                "token", "app", "topic", "environment", "reason", "status", "apns_timestamp_ms", "apns_id", "job_id",
                "campaign_id", "observed_at",
            ])
    }

    @Test func feedbackEventLeavesOutTheTimestampAndNullsUnknowns() throws {
        let notification = Fixtures.notification(5, campaignID: nil)
        let response = APNsResponse(status: 400, apnsID: APNsID(high: 1, low: 2), reason: .badDeviceToken)
        let event = try #require(
            FeedbackEvent(notification: notification, response: response, observedAt: Self.observed))
        let json = try object(event.encodedValue())
        #expect(json["apns_timestamp_ms"] == nil)
        #expect(json["campaign_id"] is NSNull)
        #expect(json["apns_id"] as? String == APNsID(high: 1, low: 2).description)
        #expect(
            FeedbackEvent(
                notification: notification, response: APNsResponse(status: 413, reason: .payloadTooLarge),
                observedAt: Self.observed) == nil)
    }

    @Test func rejectedJobKeepsTheOriginalBytes() throws {
        let message = ByteBuffer(string: #"{"id":"j7","app":"news","token":"zz","payload":{}}"#)
        let rejection = try #require(Fixtures.decoder.decode(message).failureValue)
        let record = DeadLetterRecord.rejectedJob(message, rejection, source: Fixtures.source, at: Self.observed)
            .record()
        #expect(record.value == Array(message.readableBytesView))
        #expect(record.key == Array("j7".utf8))
        #expect(record.header("salvo-kind") == "job")
        #expect(record.header("salvo-reason") == "invalid_token")
        #expect(record.header("salvo-attempts") == "0")
        #expect(record.header("salvo-app") == "news")
        #expect(record.header("salvo-job-id") == "j7")
        #expect(record.header("salvo-source-topic") == "salvo.jobs")
        #expect(record.header("salvo-source-partition") == "3")
        #expect(record.header("salvo-source-offset") == "42")
        #expect(record.header("salvo-failed-at") == "2024-05-01T12:00:00.123Z")
        #expect(record.header("salvo-message")?.isEmpty == false)
    }

    @Test func failedNotificationIsARepublishableJob() throws {
        let notification = Fixtures.notification(3, attempt: 10)
        let reason = DeadLetterReason.retriesExhausted(
            attempts: 10, last: RetryReason(kind: .apnsUnavailable, apnsStatus: 503, apnsReason: "ServiceUnavailable"))
        let record = DeadLetterRecord.failedNotification(notification, reason: reason, at: Self.observed).record()
        #expect(record.header("salvo-kind") == "notification")
        #expect(record.header("salvo-reason") == "retries_exhausted")
        #expect(record.header("salvo-attempts") == "10")
        #expect(record.header("salvo-apns-status") == "503")
        #expect(record.header("salvo-apns-reason") == "ServiceUnavailable")
        let job = try Fixtures.decoder.decode(ByteBuffer(bytes: record.value)).get()
        #expect(job.id == "job-1")
        #expect(Array(job.tokens) == [notification.token])
        #expect(job.headers == notification.headers)
        #expect(job.payload == notification.payload)
        #expect(job.campaignID == "spring")
        #expect(job.environment == .production)
    }

    @Test func rejectedTokenIsDeadLetteredWithItsText() throws {
        let job = try Fixtures.job(
            #"{"id":"c","app":"news","payload":{"a":1},"tokens":["\#(Fixtures.tokenHex(1))","x\"y"]}"#)
        let rejection = try #require(job.rejectedTokens.first)
        let record = DeadLetterRecord.rejectedToken(rejection, of: job, source: Fixtures.source, at: Self.observed)
            .record()
        #expect(record.header("salvo-reason") == "invalid_token")
        let json = try object(record.value)
        #expect(json["token"] as? String == "x\"y")
        #expect(json["payload"] as? [String: Int] == ["a": 1])
    }

    @Test func retryRecordsGroupAndRoundTrip() throws {
        let a = Fixtures.notification(1, attempt: 3)
        let b = Fixtures.notification(2, attempt: 3)
        let laterAttempt = Fixtures.notification(3, attempt: 4)
        let otherJob = Fixtures.notification(4, jobID: "job-2", attempt: 3, payload: #"{"aps":{"badge":9}}"#)
        let due = UTCTimestamp(millisecondsSince1970: 1_800_000_000_000)
        let records = RetryRecord.grouping([a, laterAttempt, b, otherJob], dueAt: due)
        #expect(records.map(\.tokens) == [[a.token, b.token], [laterAttempt.token], [otherJob.token]])
        #expect(records.map(\.attempt) == [3, 4, 3])

        let decoder = RetryRecordDecoder(jobDecoder: Fixtures.decoder)
        for record in records {
            let outgoing = record.record()
            #expect(outgoing.header("salvo-due-at-ms") == "1800000000000")
            #expect(outgoing.key == Array(record.job.id.utf8))
            let retry = try decoder.decode(ByteBuffer(bytes: outgoing.value)).get()
            #expect(retry.attempt == record.attempt)
            #expect(retry.dueAt == due)
            #expect(Array(retry.job.tokens) == record.tokens)
            #expect(retry.job.payload == record.payload)
            let reference = retry.job.reference(source: SourcePosition(topic: "salvo.retry", partition: 0, offset: 9))
            let resent = retry.notification(at: 0, job: reference)
            #expect(resent.attempt == record.attempt)
            // The apns-id of the first attempt survives the round trip.
            #expect(resent.apnsID == APNsID.deterministic(jobID: record.job.id, token: record.tokens[0]))
        }
    }

    @Test func retryDecoderNeedsTheRetryMember() throws {
        let plain = ByteBuffer(string: #"{"id":"j","app":"news","token":"\#(Fixtures.tokenHex(1))","payload":{}}"#)
        #expect(RetryRecordDecoder(jobDecoder: Fixtures.decoder).decode(plain).failureValue?.reason == .invalidRetry)
        let badAttempt = ByteBuffer(
            string:
                #"{"id":"j","app":"news","token":"\#(Fixtures.tokenHex(1))","payload":{},"retry":{"attempt":0,"due_at_ms":1}}"#
        )
        #expect(
            RetryRecordDecoder(jobDecoder: Fixtures.decoder).decode(badAttempt).failureValue?.reason == .invalidRetry)
        let badJob = ByteBuffer(
            string:
                #"{"id":"j","app":"nope","token":"\#(Fixtures.tokenHex(1))","payload":{},"retry":{"attempt":1,"due_at_ms":1}}"#
        )
        #expect(RetryRecordDecoder(jobDecoder: Fixtures.decoder).decode(badJob).failureValue?.reason == .unknownApp)
    }
}

extension Result {
    var failureValue: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }
}
