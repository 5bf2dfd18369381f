/// What to do with a notification after a send, as decided by ``OutcomeClassifier``.
package enum Outcome: Sendable, Hashable {
    /// Accepted by APNs: terminal.
    case delivered
    /// Never deliverable: produce the feedback event and/or dead letter (at least one is present);
    /// the notification is terminal once Kafka acknowledged them.
    case permanentFailure(feedback: FeedbackEvent?, deadLetter: DeadLetterReason?)
    /// Hand to the retry scheduler, which decides when (per device token, or backoff with jitter).
    case retry(RetryReason)
    /// The request was never processed: send it again now, on another connection
    /// (``PushNotification/replayed()``).
    case replayNow
    /// The provider token expired: refresh it and send again at once (``PushNotification/retried()``).
    case refreshTokenAndReplay
}
