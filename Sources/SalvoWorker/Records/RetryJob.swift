/// A record read back from the retry topic: a job whose notifications continue their attempt
/// count and are not to be sent before ``dueAt``.
package struct RetryJob: Sendable {
    package let job: Job
    /// The attempt the next send is.
    package let attempt: Int
    package let dueAt: UTCTimestamp

    /// The notification for the token at `index`, continuing the attempt count.
    package func notification(at index: Int, job reference: JobReference) -> PushNotification {
        job.notification(at: index, job: reference, attempt: attempt)
    }
}
