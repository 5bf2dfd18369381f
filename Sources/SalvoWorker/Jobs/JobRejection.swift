/// Why a job (or one token of it) cannot be sent, with a stable machine-readable code for the
/// dead-letter topic and dashboards, and a message naming the rule for the human reading it.
///
/// Rejections are values, not failures of the worker: a rejected job is dead-lettered, counted,
/// and its offset moves on, so bad input never blocks a partition. The codes are part of the
/// contract (docs/jobs.md lists them) and never change meaning.
package struct JobRejection: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stable code, an extensible set of snake_case strings.
    package struct Reason: Hashable, Sendable, CustomStringConvertible {
        /// The code as written to dead-letter records (`salvo-reason` header).
        package let code: String

        private init(_ code: String) { self.code = code }

        /// The message is not JSON (syntax error, bad UTF-8, nesting deeper than 64, trailing bytes).
        package static let malformedJSON = Reason("malformed_json")
        /// The message is JSON but not an object.
        package static let notAnObject = Reason("not_an_object")
        /// The message is larger than ``JobDecoder/Configuration/maximumJobBytes``.
        package static let jobTooLarge = Reason("job_too_large")
        /// A field the job schema defines appears twice.
        package static let duplicateField = Reason("duplicate_field")
        /// A required field is absent (or null).
        package static let missingField = Reason("missing_field")
        /// A field has the wrong JSON type or an out-of-range value (id, app, campaign_id, tokens).
        package static let invalidField = Reason("invalid_field")
        /// Both `token` and `tokens`, or both `payload` and `payload_raw`.
        package static let conflictingFields = Reason("conflicting_fields")
        /// `app` names no configured app.
        package static let unknownApp = Reason("unknown_app")
        /// `tokens` is an empty array.
        package static let emptyTokenList = Reason("empty_token_list")
        /// More tokens than ``JobDecoder/Configuration/maximumTokens``.
        package static let tooManyTokens = Reason("too_many_tokens")
        /// A token is not 16…200 hex characters (even count). For a campaign, only that token is
        /// rejected unless every token is.
        package static let invalidToken = Reason("invalid_token")
        /// `payload` is not an object, or `payload_raw` does not hold one JSON object.
        package static let invalidPayload = Reason("invalid_payload")
        /// The payload (or a per-token variant of it) exceeds the push type's limit.
        package static let payloadTooLarge = Reason("payload_too_large")
        /// `push_type` is not a type Apple defines.
        package static let invalidPushType = Reason("invalid_push_type")
        /// `priority` is not 10, 5 or 1, or the push type does not allow it.
        package static let invalidPriority = Reason("invalid_priority")
        /// `topic` is malformed or breaks the push type's suffix rule.
        package static let invalidTopic = Reason("invalid_topic")
        /// `expiration` is not a non-negative integer of UNIX seconds.
        package static let invalidExpiration = Reason("invalid_expiration")
        /// `collapse_id` is empty, longer than 64 bytes, holds control characters, or starts or
        /// ends with a space: HTTP/2 forbids such a header value, so it is never sent.
        package static let invalidCollapseID = Reason("invalid_collapse_id")
        /// `environment` is neither "production" nor "sandbox".
        package static let invalidEnvironment = Reason("invalid_environment")
        /// `per_token` breaks its rule (see docs/jobs.md).
        package static let invalidPerToken = Reason("invalid_per_token")
        /// A record of the retry topic lacks a valid `retry` member.
        package static let invalidRetry = Reason("invalid_retry")

        /// Every code, for documentation and metrics pre-registration.
        package static let all: [Reason] = [
            .malformedJSON, .notAnObject, .jobTooLarge, .duplicateField, .missingField, .invalidField,
            .conflictingFields, .unknownApp, .emptyTokenList, .tooManyTokens, .invalidToken, .invalidPayload,
            .payloadTooLarge, .invalidPushType, .invalidPriority, .invalidTopic, .invalidExpiration,
            .invalidCollapseID, .invalidEnvironment, .invalidPerToken, .invalidRetry,
        ]

        package var description: String { code }
    }

    package var reason: Reason
    /// Names the rule that failed and where (field, byte offset, token index).
    package var message: String
    /// The job's `id`, when it was read before the failure.
    package var jobID: String?
    /// The job's `app`, when it was read before the failure.
    package var app: String?

    package init(_ reason: Reason, _ message: String, jobID: String? = nil, app: String? = nil) {
        self.reason = reason
        self.message = message
        self.jobID = jobID
        self.app = app
    }

    package var description: String { "\(reason.code): \(message)" }
}
