import NIOCore
import SalvoAPNs
import Testing

@testable import SalvoWorker

@Suite struct OutcomeClassifierTests {
    static let time = UTCTimestamp(millisecondsSince1970: 1_714_564_800_000)
    let classifier = try! OutcomeClassifier()

    private func classify(_ response: APNsResponse, attempt: Int = 1) -> Outcome {
        classifier.classify(.rejected(response), of: Fixtures.notification(attempt: attempt), at: Self.time)
    }

    @Test func acceptedIsDelivered() {
        #expect(classifier.classify(.accepted, of: Fixtures.notification(), at: Self.time) == .delivered)
        #expect(
            classifier.classify(
                DeliveryResult(.success(APNsResponse(status: 200))), of: Fixtures.notification(), at: Self.time)
                == .delivered)
    }

    @Test(arguments: [APNsReason.unregistered, .expiredToken, .badDeviceToken, .deviceTokenNotForTopic])
    func deadTokensProduceFeedbackOnly(_ reason: APNsReason) throws {
        let response = APNsResponse(status: reason.status!, reason: reason, timestampMilliseconds: 5)
        guard case .permanentFailure(let feedback, let deadLetter) = classify(response) else {
            Issue.record("expected a permanent failure")
            return
        }
        #expect(feedback?.reason == reason)
        #expect(feedback?.status == reason.status)
        #expect(deadLetter == nil)
    }

    @Test func deadTokensCanAlsoBeDeadLettered() throws {
        let classifier = try OutcomeClassifier(configuration: .init(deadLetterInvalidTokens: true))
        let outcome = classifier.classify(
            .rejected(APNsResponse(status: 410, reason: .unregistered)), of: Fixtures.notification(), at: Self.time)
        guard case .permanentFailure(let feedback, let deadLetter) = outcome else {
            Issue.record("expected a permanent failure")
            return
        }
        #expect(feedback != nil)
        #expect(deadLetter?.code == "apns_rejected")
        #expect(deadLetter?.apnsReason == "Unregistered")
    }

    @Test(arguments: [
        APNsReason.payloadTooLarge, .forbidden, .badTopic, .topicDisallowed, .badCertificate, .invalidProviderToken,
        .missingTopic,
    ])
    func otherPermanentAnswersAreDeadLettered(_ reason: APNsReason) {
        let outcome = classify(APNsResponse(status: reason.status!, reason: reason))
        #expect(
            outcome
                == .permanentFailure(
                    feedback: nil, deadLetter: .apnsRejected(APNsResponse(status: reason.status!, reason: reason))))
    }

    @Test func tooManyRequestsDelaysTheToken() {
        #expect(
            classify(APNsResponse(status: 429, reason: .tooManyRequests))
                == .retry(RetryReason(kind: .tooManyRequests, apnsStatus: 429, apnsReason: "TooManyRequests")))
    }

    @Test(arguments: [APNsReason.internalServerError, .serviceUnavailable, .shutdown, .tooManyProviderTokenUpdates])
    func serverTroubleBacksOff(_ reason: APNsReason) {
        guard case .retry(let retry) = classify(APNsResponse(status: reason.status!, reason: reason)) else {
            Issue.record("expected a retry")
            return
        }
        #expect(retry.kind == .apnsUnavailable)
        #expect(!retry.isPerDeviceToken)
    }

    @Test func unknownAnswersFollowTheirStatus() {
        guard case .retry = classify(APNsResponse(status: 502, reason: .other("BadGateway"))) else {
            Issue.record("a 5xx with an unknown reason must be retried")
            return
        }
        guard case .retry = classify(APNsResponse(status: 503)) else {
            Issue.record("a 503 without a body must be retried")
            return
        }
        guard
            case .permanentFailure(nil, let deadLetter?) = classify(
                APNsResponse(status: 400, reason: .other("NewRule")))
        else {
            Issue.record("an unknown 400 is permanent")
            return
        }
        #expect(deadLetter.apnsReason == "NewRule")
    }

    @Test func expiredProviderTokenRefreshesAndReplays() {
        #expect(classify(APNsResponse(status: 403, reason: .expiredProviderToken)) == .refreshTokenAndReplay)
        guard
            case .permanentFailure(nil, let deadLetter?) = classify(
                APNsResponse(status: 403, reason: .expiredProviderToken), attempt: 10)
        else {
            Issue.record("expected dead letter after the last attempt")
            return
        }
        #expect(deadLetter.code == "retries_exhausted")
    }

    @Test func notSentReplaysAFewTimesThenBacksOff() {
        var notification = Fixtures.notification()
        var outcomes: [Outcome] = []
        for _ in 0..<4 {
            let outcome = classifier.classify(.notSent(cause: "GOAWAY"), of: notification, at: Self.time)
            outcomes.append(outcome)
            notification = notification.replayed()
        }
        #expect(outcomes == [.replayNow, .replayNow, .replayNow, .retry(RetryReason(kind: .notSent, cause: "GOAWAY"))])
        // A new attempt gets fresh replays.
        #expect(classifier.classify(.notSent(cause: "GOAWAY"), of: notification.retried(), at: Self.time) == .replayNow)
    }

    @Test func requestsWithoutAnAnswerAreRetriedNeverDeadLetteredAsInvalid() {
        let notification = Fixtures.notification()
        let timedOut = DeliveryResult(.failure(APNsError(code: .timedOut, message: "no answer within 10 s")))
        guard case .unanswered = timedOut else {
            Issue.record("a timeout must not count as an invalid request: \(timedOut)")
            return
        }
        guard case .retry(let reason) = classifier.classify(timedOut, of: notification, at: Self.time) else {
            Issue.record("a timed-out request must be retried")
            return
        }
        #expect(reason.kind == .unanswered)
        // A connection lost mid-request is replayed on another connection first.
        let lost = DeliveryResult(.failure(APNsError(code: .connectionLost, message: "connection reset")))
        #expect(classifier.classify(lost, of: notification, at: Self.time) == .replayNow)
        // A real validation failure stays permanent.
        let invalid = DeliveryResult(.failure(APNsError(code: .payloadTooLarge, message: "4097 bytes")))
        guard case .permanentFailure(nil, _?) = classifier.classify(invalid, of: notification, at: Self.time) else {
            Issue.record("an invalid request must be dead-lettered")
            return
        }
    }

    @Test func attemptsAreBounded() {
        #expect(
            classify(APNsResponse(status: 503, reason: .serviceUnavailable), attempt: 9)
                != classify(APNsResponse(status: 503, reason: .serviceUnavailable), attempt: 10))
        guard
            case .permanentFailure(nil, let deadLetter?) = classify(
                APNsResponse(status: 503, reason: .serviceUnavailable), attempt: 10)
        else {
            Issue.record("expected a dead letter")
            return
        }
        #expect(deadLetter.code == "retries_exhausted")
        #expect(deadLetter.apnsStatus == 503)
        #expect(deadLetter.message.contains("10 attempts"))
    }

    @Test func poolErrorsAreMapped() {
        let notSent = DeliveryResult(.failure(APNsError.notSent("connection reset")))
        #expect(classifier.classify(notSent, of: Fixtures.notification(), at: Self.time) == .replayNow)
        let rejected = DeliveryResult(.failure(APNsError.rejected(APNsResponse(status: 410, reason: .unregistered))))
        guard
            case .permanentFailure(let feedback?, nil) = classifier.classify(
                rejected, of: Fixtures.notification(), at: Self.time)
        else {
            Issue.record("expected feedback")
            return
        }
        #expect(feedback.reason == .unregistered)
        let invalid = DeliveryResult(
            .failure(APNsError(code: .payloadTooLarge, message: "too big", reason: .payloadTooLarge)))
        guard
            case .permanentFailure(nil, let deadLetter?) = classifier.classify(
                invalid, of: Fixtures.notification(), at: Self.time)
        else {
            Issue.record("expected a dead letter")
            return
        }
        #expect(deadLetter.code == "invalid_request")
    }

    @Test func configurationIsValidated() {
        #expect(throws: SalvoWorkerError.self) { try OutcomeClassifier(configuration: .init(maximumAttempts: 0)) }
        #expect(throws: SalvoWorkerError.self) {
            try OutcomeClassifier(configuration: .init(maximumImmediateReplays: -1))
        }
    }
}
