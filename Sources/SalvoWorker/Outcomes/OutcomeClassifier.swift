import SalvoAPNs

/// Apple's retry matrix as one pure function: given what a send produced, the notification (with
/// its attempt and replay counts) and the time, say what happens next.
///
/// - 200: delivered.
/// - Unregistered, ExpiredToken, BadDeviceToken, DeviceTokenNotForTopic: permanent, with a
///   feedback event (and a dead letter only if configured).
/// - Every other permanent answer (PayloadTooLarge, Forbidden, BadTopic, …): dead letter.
/// - 429 TooManyRequests: retry after the per-device-token delay.
/// - 5xx, Shutdown, TooManyProviderTokenUpdates, unknown retryable statuses: retry with backoff.
/// - ExpiredProviderToken: refresh the JWT and replay.
/// - Not processed (refused stream, GOAWAY, connection lost): replay at once, at most
///   `maximumImmediateReplays` times per attempt, then back off.
/// - Stream reset with PROTOCOL_ERROR (the request is malformed in HTTP/2's eyes): replay once
///   (a broken connection could cause it too), then dead letter (`stream_protocol_error`). Retried
///   with backoff it would hold its partition's commit for minutes and fail every time.
/// The status decides the class of an APNs answer and a reason only refines it
/// (``SalvoAPNs/APNsResponse/retryPolicy``): a 500 carrying `BadDeviceToken` backs off and
/// publishes no feedback event.
/// Every retry path is bounded by `maximumAttempts`, then dead-lettered (`retries_exhausted`).
public struct OutcomeClassifier: Sendable {
    package let configuration: Configuration

    package init(configuration: Configuration = Configuration()) throws(SalvoWorkerError) {
        try configuration.validate()
        self.configuration = configuration
    }

    package func classify(_ result: DeliveryResult, of notification: PushNotification, at time: UTCTimestamp) -> Outcome
    {
        switch result {
        case .accepted:
            return .delivered
        case .invalidRequest(let error):
            return .permanentFailure(feedback: nil, deadLetter: .invalidRequest(error))
        case .notSent(let cause):
            if notification.replays < configuration.maximumImmediateReplays { return .replayNow }
            return retry(notification, RetryReason(kind: .notSent, cause: cause))
        case .unanswered(let error):
            // A connection lost mid-request is worth another connection at once (docs/design.md);
            // a timeout or a failing connect or signer backs off first.
            if error.code == .connectionLost, notification.replays < configuration.maximumImmediateReplays {
                return .replayNow
            }
            return retry(notification, RetryReason(kind: .unanswered, cause: "\(error.code): \(error.message)"))
        case .rejected(let response):
            return classify(response, of: notification, at: time)
        case .streamProtocolError(let error):
            // One replay, unless immediate replays are switched off altogether.
            if notification.replays < min(1, configuration.maximumImmediateReplays) { return .replayNow }
            return .permanentFailure(
                feedback: nil, deadLetter: .streamProtocolError(error, replays: notification.replays))
        }
    }

    private func classify(_ response: APNsResponse, of notification: PushNotification, at time: UTCTimestamp) -> Outcome
    {
        switch response.retryPolicy {
        case nil:
            return .delivered
        case .never:
            guard let feedback = FeedbackEvent(notification: notification, response: response, observedAt: time) else {
                return .permanentFailure(feedback: nil, deadLetter: .apnsRejected(response))
            }
            let deadLetter = configuration.deadLetterInvalidTokens ? DeadLetterReason.apnsRejected(response) : nil
            return .permanentFailure(feedback: feedback, deadLetter: deadLetter)
        case .afterDelayPerToken:
            return retry(notification, RetryReason(response: response, kind: .tooManyRequests))
        case .backoff:
            return retry(notification, RetryReason(response: response, kind: .apnsUnavailable))
        case .refreshTokenAndReplay:
            let reason = RetryReason(response: response, kind: .providerTokenExpired)
            return hasAttemptsLeft(notification) ? .refreshTokenAndReplay : exhausted(notification, reason)
        }
    }

    private func retry(_ notification: PushNotification, _ reason: RetryReason) -> Outcome {
        hasAttemptsLeft(notification) ? .retry(reason) : exhausted(notification, reason)
    }

    private func hasAttemptsLeft(_ notification: PushNotification) -> Bool {
        notification.attempt < configuration.maximumAttempts
    }

    private func exhausted(_ notification: PushNotification, _ reason: RetryReason) -> Outcome {
        .permanentFailure(feedback: nil, deadLetter: .retriesExhausted(attempts: notification.attempt, last: reason))
    }
}
