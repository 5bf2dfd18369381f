import SalvoAPNs

/// Why a notification waits for another attempt, which decides how long: a device-specific limit
/// delays that token; APNs being unwell or unreachable backs off exponentially with jitter.
package struct RetryReason: Sendable, Hashable, CustomStringConvertible {
    package enum Kind: String, Sendable, Hashable, CaseIterable {
        /// 429 TooManyRequests: this device token received too many notifications.
        case tooManyRequests = "too_many_requests"
        /// 5xx, Shutdown, TooManyProviderTokenUpdates, or an unknown retryable answer.
        case apnsUnavailable = "apns_unavailable"
        /// The request was never processed and immediate replays were used up.
        case notSent = "not_sent"
        /// No answer came (timed out, connection lost after sending) or the send could not be
        /// prepared (connect or signing failed); it may have been delivered.
        case unanswered = "unanswered"
        /// ExpiredProviderToken persisted through the replay with a refreshed token.
        case providerTokenExpired = "provider_token_expired"
    }

    package var kind: Kind
    package var apnsStatus: Int?
    package var apnsReason: String?
    /// The transport's words for ``Kind/notSent``.
    package var cause: String?

    package init(kind: Kind, apnsStatus: Int? = nil, apnsReason: String? = nil, cause: String? = nil) {
        self.kind = kind
        self.apnsStatus = apnsStatus
        self.apnsReason = apnsReason
        self.cause = cause
    }

    /// The reason for a retryable APNs answer.
    init(response: APNsResponse, kind: Kind) {
        self.init(kind: kind, apnsStatus: response.status, apnsReason: response.reason?.string)
    }

    /// The `reason` label of its metrics: Apple's reason when it is a documented one, `other`
    /// for any other, or the kind when APNs gave none.
    package var metricLabel: String {
        apnsReason.map(APNsReason.metricLabel) ?? kind.rawValue
    }

    /// Whether the delay is the per-device-token one rather than the exponential backoff.
    package var isPerDeviceToken: Bool { kind == .tooManyRequests }

    package var description: String {
        var text = kind.rawValue
        if let apnsStatus { text += " \(apnsStatus)" }
        if let apnsReason { text += " \(apnsReason)" }
        if let cause { text += " (\(cause))" }
        return text
    }
}
