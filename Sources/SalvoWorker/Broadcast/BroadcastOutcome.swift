import NIOCore
import SalvoAPNs

/// What to do after one attempt at a broadcast job, by Apple's matrix and the worker's rules for
/// device pushes: delivered; tried again (429, 5xx, not sent, timed out, connection lost); or
/// dead-lettered (every other refusal, or the request could not be built), with a channel
/// feedback event when APNs said `ChannelNotRegistered`.
package enum BroadcastOutcome: Sendable {
    case delivered(APNsChannelResponse)
    /// Send again after the delay the policy calls for (the retry topic, like a notification).
    case retry(APNsRetryPolicy, reason: String)
    /// Produce `deadLetter` to the dead-letter topic and `feedback`, when present, to the
    /// feedback topic.
    case deadLetter(DeadLetterRecord, feedback: OutgoingRecord?)

    /// Classifies one attempt's result.
    /// - Parameters:
    ///   - message: the job's original Kafka message: the dead letter's value, so it can be
    ///     republished once the cause is fixed (as for rejected jobs).
    ///   - attempt: this attempt's number (1 for the first).
    package static func classify(
        _ result: Result<APNsChannelResponse, APNsError>, job: BroadcastJob, message: ByteBuffer,
        source: SourcePosition?,
        attempt: Int, at time: UTCTimestamp
    ) -> BroadcastOutcome {
        let deadLetter = { (reason: DeadLetterReason) in
            DeadLetterRecord(
                subject: .job(message), reason: reason, attempts: attempt, app: job.app, jobID: job.id, source: source,
                failedAt: time)
        }
        switch result {
        case .failure(let error):
            if error.isRetriable { return .retry(.backoff, reason: error.code.description) }
            return .deadLetter(deadLetter(.invalidRequest(error)), feedback: nil)
        case .success(let response):
            guard let policy = response.retryPolicy else { return .delivered(response) }
            if policy != .never {
                return .retry(policy, reason: response.reason?.metricLabel ?? "status_\(response.status)")
            }
            let reason = DeadLetterReason(
                code: DeadLetterReason.apnsRejectedCode,
                message:
                    "APNs answered \(response.status) \(response.reason?.string ?? "without a reason") to the broadcast",
                apnsStatus: response.status, apnsReason: response.reason?.string)
            let feedback = ChannelFeedbackEvent(job: job, response: response, observedAt: time)?.record()
            return .deadLetter(deadLetter(reason), feedback: feedback)
        }
    }
}
