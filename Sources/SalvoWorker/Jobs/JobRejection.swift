/// Why a job (or one token of it) cannot be sent, with a stable machine-readable code for the
/// dead-letter topic and dashboards, and a message naming the rule for the human reading it.
///
/// Rejections are values, not failures of the worker: a rejected job is dead-lettered, counted,
/// and its offset moves on, so bad input never blocks a partition. The codes are part of the
/// contract (docs/jobs.md lists them) and never change meaning.
public struct JobRejection: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stable code, an extensible set of snake_case strings.
    public struct Reason: Hashable, Sendable, CustomStringConvertible {
        /// The code as written to dead-letter records (`salvo-reason` header).
        public let code: String

        private init(_ code: String) { self.code = code }

        /// The message is not JSON (syntax error, bad UTF-8, nesting deeper than 64, trailing bytes).
        public static let malformedJSON = Reason("malformed_json")
        /// The message is JSON but not an object.
        public static let notAnObject = Reason("not_an_object")
        /// The message is larger than ``JobDecoder/Configuration/maximumJobBytes``.
        public static let jobTooLarge = Reason("job_too_large")
        /// A field the job schema defines appears twice.
        public static let duplicateField = Reason("duplicate_field")
        /// A required field is absent (or null).
        public static let missingField = Reason("missing_field")
        /// A field has the wrong JSON type or an out-of-range value (id, app, campaign_id, tokens).
        public static let invalidField = Reason("invalid_field")
        /// Both `token` and `tokens`, or both `payload` and `payload_raw`.
        public static let conflictingFields = Reason("conflicting_fields")
        /// `app` names no configured app.
        public static let unknownApp = Reason("unknown_app")
        /// `tokens` is an empty array.
        public static let emptyTokenList = Reason("empty_token_list")
        /// More tokens than ``JobDecoder/Configuration/maximumTokens``.
        public static let tooManyTokens = Reason("too_many_tokens")
        /// A token is not 16…200 hex characters (even count). For a campaign, only that token is
        /// rejected unless every token is.
        public static let invalidToken = Reason("invalid_token")
        /// `payload` is not an object, or `payload_raw` does not hold one JSON object.
        public static let invalidPayload = Reason("invalid_payload")
        /// The payload (or a per-token variant of it) exceeds the push type's limit.
        public static let payloadTooLarge = Reason("payload_too_large")
        /// `push_type` is not a type Apple defines.
        public static let invalidPushType = Reason("invalid_push_type")
        /// `priority` is not 10, 5 or 1, or the push type does not allow it.
        public static let invalidPriority = Reason("invalid_priority")
        /// `topic` is malformed or breaks the push type's suffix rule.
        public static let invalidTopic = Reason("invalid_topic")
        /// `expiration` is not a non-negative integer of UNIX seconds.
        public static let invalidExpiration = Reason("invalid_expiration")
        /// `collapse_id` is empty, longer than 64 bytes, holds control characters, or starts or
        /// ends with a space: HTTP/2 forbids such a header value, so it is never sent.
        public static let invalidCollapseID = Reason("invalid_collapse_id")
        /// `environment` is neither "production" nor "sandbox".
        public static let invalidEnvironment = Reason("invalid_environment")
        /// `per_token` breaks its rule (see docs/jobs.md).
        public static let invalidPerToken = Reason("invalid_per_token")
        /// A record of the retry topic lacks a valid `retry` member.
        public static let invalidRetry = Reason("invalid_retry")

        /// Every code, for documentation and metrics pre-registration.
        public static let all: [Reason] = [
            .malformedJSON, .notAnObject, .jobTooLarge, .duplicateField, .missingField, .invalidField,
            .conflictingFields, .unknownApp, .emptyTokenList, .tooManyTokens, .invalidToken, .invalidPayload,
            .payloadTooLarge, .invalidPushType, .invalidPriority, .invalidTopic, .invalidExpiration,
            .invalidCollapseID, .invalidEnvironment, .invalidPerToken, .invalidRetry,
        ]

        public var description: String { code }
    }

    public var reason: Reason
    /// Names the rule that failed and where (field, byte offset, token index).
    public var message: String
    /// The job's `id`, when it was read before the failure.
    public var jobID: String?
    /// The job's `app`, when it was read before the failure.
    public var app: String?

    public init(_ reason: Reason, _ message: String, jobID: String? = nil, app: String? = nil) {
        self.reason = reason
        self.message = message
        self.jobID = jobID
        self.app = app
    }

    public var description: String { "\(reason.code): \(message)" }
}
