import SalvoAPNs

/// Why something was dead-lettered: a stable code (the job rejection codes of docs/jobs.md, plus
/// the notification codes below), a message for the operator, and APNs's verdict when there was one.
package struct DeadLetterReason: Sendable, Hashable, CustomStringConvertible {
    /// APNs refused the notification permanently (the `apns_reason` says why).
    package static let apnsRejectedCode = "apns_rejected"
    /// A retryable failure persisted through every allowed attempt.
    package static let retriesExhaustedCode = "retries_exhausted"
    /// The request could not even be built (the payload broke a rule after decoding).
    package static let invalidRequestCode = "invalid_request"

    package var code: String
    package var message: String
    package var apnsStatus: Int?
    package var apnsReason: String?

    package init(code: String, message: String, apnsStatus: Int? = nil, apnsReason: String? = nil) {
        self.code = code
        self.message = message
        self.apnsStatus = apnsStatus
        self.apnsReason = apnsReason
    }

    /// A job or token the decoder rejected.
    package init(_ rejection: JobRejection) {
        self.init(code: rejection.reason.code, message: rejection.message)
    }

    package init(_ rejection: TokenRejection) {
        self.init(code: rejection.reason.code, message: rejection.message)
    }

    /// APNs's permanent refusal.
    package static func apnsRejected(_ response: APNsResponse) -> DeadLetterReason {
        let reason = response.reason?.string
        return DeadLetterReason(
            code: apnsRejectedCode,
            message: "APNs answered \(response.status) \(reason ?? "without a reason")",
            apnsStatus: response.status,
            apnsReason: reason
        )
    }

    /// The last retryable failure after `attempts` attempts.
    package static func retriesExhausted(attempts: Int, last: RetryReason) -> DeadLetterReason {
        DeadLetterReason(
            code: retriesExhaustedCode,
            message: "gave up after \(attempts) attempts; last: \(last)",
            apnsStatus: last.apnsStatus,
            apnsReason: last.apnsReason
        )
    }

    /// The notification broke a rule when its request was built.
    package static func invalidRequest(_ error: APNsError) -> DeadLetterReason {
        DeadLetterReason(code: invalidRequestCode, message: error.message, apnsReason: error.reason?.string)
    }

    package var description: String { "\(code): \(message)" }
}
