import NIOCore
import SalvoAPNs
import Testing

@testable import SalvoWorker

/// Hostile input at the worker's edge: a field HTTP/2 forbids never reaches a send, a PROTOCOL_ERROR
/// reset is final after one replay, and APNs answers are classified by status first.
@Suite struct HostileInputOutcomeTests {
    static let time = UTCTimestamp(millisecondsSince1970: 1_714_564_800_000)
    let classifier = try! OutcomeClassifier()

    @Test(arguments: ["abc ", " abc", "a\\u0000b", "a\\r\\nb", "a\\u007f"])
    func collapseIDsHTTP2ForbidsAreRejectedByTheDecoder(escaped: String) {
        let json =
            #"{"id":"j","app":"news","token":"\#(Fixtures.tokenHex(1))","collapse_id":"\#(escaped)","payload":{}}"#
        guard case .failure(let rejection) = Fixtures.decode(json) else {
            Issue.record("collapse_id \(escaped) must be rejected")
            return
        }
        #expect(rejection.reason == .invalidCollapseID)
        #expect(rejection.jobID == "j")
    }

    @Test func anInnerSpaceIsFine() throws {
        let job = try Fixtures.job(
            #"{"id":"j","app":"news","token":"\#(Fixtures.tokenHex(1))","collapse_id":"a b","payload":{}}"#)
        #expect(job.headers.collapseID?.string == "a b")
    }

    private static let protocolError = APNsError(
        code: .streamProtocolError, message: "APNs reset the request's stream with PROTOCOL_ERROR (malformed request)")

    @Test func aProtocolErrorResetIsReplayedOnceThenDeadLettered() {
        #expect(DeliveryResult(.failure(Self.protocolError)).isStreamProtocolError)
        let first = Fixtures.notification()
        #expect(
            classifier.classify(DeliveryResult(.failure(Self.protocolError)), of: first, at: Self.time) == .replayNow)
        let outcome = classifier.classify(
            DeliveryResult(.failure(Self.protocolError)), of: first.replayed(), at: Self.time)
        guard case .permanentFailure(nil, let deadLetter?) = outcome else {
            Issue.record("expected a dead letter, got \(outcome)")
            return
        }
        #expect(deadLetter.code == "stream_protocol_error")
        #expect(deadLetter.metricLabel == "stream_protocol_error")
        #expect(deadLetter.message.contains("PROTOCOL_ERROR"))
    }

    @Test func withoutImmediateReplaysItIsDeadLetteredAtOnce() throws {
        let classifier = try OutcomeClassifier(configuration: .init(maximumImmediateReplays: 0))
        guard
            case .permanentFailure(nil, let deadLetter?) = classifier.classify(
                .streamProtocolError(Self.protocolError), of: Fixtures.notification(), at: Self.time)
        else {
            Issue.record("expected a dead letter")
            return
        }
        #expect(deadLetter.code == DeadLetterReason.streamProtocolErrorCode)
    }

    @Test(arguments: [APNsReason.badDeviceToken, .unregistered, .deviceTokenNotForTopic, .expiredToken])
    func aTokenReasonUnderA5xxBacksOffWithoutFeedback(reason: APNsReason) {
        let outcome = classifier.classify(
            .rejected(APNsResponse(status: 500, reason: reason)), of: Fixtures.notification(), at: Self.time)
        guard case .retry(let retry) = outcome else {
            Issue.record("a 500 must be retried, never turned into a feedback event: got \(outcome)")
            return
        }
        #expect(retry.kind == .apnsUnavailable)
        #expect(retry.apnsStatus == 500)
    }

    @Test func aTokenReasonUnderAnotherClientErrorIsDeadLetteredWithoutFeedback() {
        let response = APNsResponse(status: 400, reason: .unregistered)
        #expect(
            classifier.classify(.rejected(response), of: Fixtures.notification(), at: Self.time)
                == .permanentFailure(feedback: nil, deadLetter: .apnsRejected(response)))
    }

    @Test func unknownReasonsAreLabelledOther() {
        let retry = RetryReason(kind: .apnsUnavailable, apnsStatus: 500, apnsReason: "Hostile\u{1}Reason")
        #expect(retry.metricLabel == "other")
        #expect(RetryReason(kind: .apnsUnavailable, apnsStatus: 503, apnsReason: "Shutdown").metricLabel == "Shutdown")
        #expect(RetryReason(kind: .notSent).metricLabel == "not_sent")
        let deadLetter = DeadLetterReason.apnsRejected(
            APNsResponse(status: 400, reason: APNsReason(String(repeating: "z", count: 200_000))))
        #expect(deadLetter.metricLabel == "other")
        #expect(
            deadLetter.apnsReason?.utf8.count == APNsReason.maximumOtherLength, "the dead letter's header is bounded")
    }
}

extension DeliveryResult {
    fileprivate var isStreamProtocolError: Bool {
        if case .streamProtocolError = self { return true }
        return false
    }
}
