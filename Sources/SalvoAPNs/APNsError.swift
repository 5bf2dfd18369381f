/// The one error type of SalvoAPNs.
///
/// Callers mostly need one decision: may this notification be sent again? Two codes draw that
/// line the way Pushy's `sendNotification` documentation does:
/// - ``Code/rejected``: APNs answered and refused the notification. The error carries Apple's
///   reason and status; whether a retry can help is Apple's retry matrix (``APNsReason/retryPolicy``).
/// - ``Code/notSent``: APNs never processed the request (refused stream, GOAWAY above the last
///   stream id, connection lost before the headers left). Replaying it is always safe.
///
/// Between the two sit the transport failures, ``Code/timedOut`` and ``Code/connectionLost``: the
/// request left but no answer came, so APNs may or may not have delivered it; and
/// ``Code/connectionFailed``, when no connection could be set up at all.
///
/// Every other code is raised before anything is sent (validation, credentials) and is permanent
/// for the input that caused it. Messages never contain key material.
public struct APNsError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as an extensible set: new codes can be added without breaking `switch`es.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case invalidDeviceToken
            case invalidTopic
            case invalidPushType
            case invalidPriority
            case invalidExpiration
            case invalidCollapseID
            case invalidAPNsID
            case payloadEmpty
            case payloadTooLarge
            case payloadNotJSONObject
            case invalidCredential
            case credentialUnreadable
            case signingFailed
            case invalidConfiguration
            case rejected
            case notSent
            case connectionFailed
            case timedOut
            case connectionLost
            case streamProtocolError
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The device token is not 16…200 hexadecimal characters (even count).
        public static let invalidDeviceToken = Code(.invalidDeviceToken)
        /// The topic is empty, too long, not visible ASCII, or breaks the push type's suffix rule.
        public static let invalidTopic = Code(.invalidTopic)
        /// The push type is not one Apple defines.
        public static let invalidPushType = Code(.invalidPushType)
        /// The priority is not 10, 5 or 1, or the push type does not allow it.
        public static let invalidPriority = Code(.invalidPriority)
        /// The expiration is negative or not a number.
        public static let invalidExpiration = Code(.invalidExpiration)
        /// The collapse id is empty, longer than 64 bytes, holds control characters, or starts or
        /// ends with a space (HTTP/2 forbids such a header value).
        public static let invalidCollapseID = Code(.invalidCollapseID)
        /// The apns-id is not a canonical UUID.
        public static let invalidAPNsID = Code(.invalidAPNsID)
        /// The payload has no bytes.
        public static let payloadEmpty = Code(.payloadEmpty)
        /// The payload exceeds the push type's limit (4096 bytes, 5120 for VoIP).
        public static let payloadTooLarge = Code(.payloadTooLarge)
        /// The payload is not shaped like a JSON object (`{` … `}`).
        public static let payloadNotJSONObject = Code(.payloadNotJSONObject)
        /// Key or certificate material was read but is not usable (bad PEM, wrong password, bad ids).
        public static let invalidCredential = Code(.invalidCredential)
        /// A key or certificate file could not be read.
        public static let credentialUnreadable = Code(.credentialUnreadable)
        /// ES256 signing of a provider token failed.
        public static let signingFailed = Code(.signingFailed)
        /// A configuration value is outside its documented range.
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// APNs answered with an error status: see ``APNsError/response``.
        public static let rejected = Code(.rejected)
        /// APNs never processed the request; replaying it is safe.
        public static let notSent = Code(.notSent)
        /// No HTTP/2 connection could be set up: TCP connect, TLS handshake (certificate rejected
        /// by either side), ALPN without `h2`, or no SETTINGS in time. ``APNsError/underlying``
        /// carries the transport's own text.
        public static let connectionFailed = Code(.connectionFailed)
        /// No answer before the request's deadline. APNs may still have delivered it, so a retry
        /// can duplicate the notification.
        public static let timedOut = Code(.timedOut)
        /// The connection went away after the request left and before APNs answered. APNs may
        /// have delivered it, so a retry can duplicate the notification.
        public static let connectionLost = Code(.connectionLost)
        /// APNs reset the request's stream with PROTOCOL_ERROR: its HTTP/2 layer found the request
        /// malformed (a header value HTTP/2 forbids, say) before APNs looked at it. The same bytes
        /// are refused the same way again, so it is not retriable; the worker still replays it
        /// once, in case a broken connection rather than the request caused it.
        public static let streamProtocolError = Code(.streamProtocolError)

        public var description: String { base.rawValue }
    }

    public var code: Code
    /// Human-readable explanation naming the rule that failed.
    public var message: String
    /// Apple's reason: the one APNs answered (``Code/rejected``) or, for client-side validation,
    /// the one APNs would answer for the same request.
    public var reason: APNsReason?
    /// APNs's answer, for ``Code/rejected``.
    public var response: APNsResponse?
    /// Text of the underlying library error (NIOSSL, swift-crypto, the file system), if any.
    public var underlying: String?
    public var file: String
    public var line: Int

    public init(
        code: Code,
        message: String,
        reason: APNsReason? = nil,
        response: APNsResponse? = nil,
        underlying: String? = nil,
        file: String = #fileID,
        line: Int = #line
    ) {
        self.code = code
        self.message = message
        self.reason = reason
        self.response = response
        self.underlying = underlying
        self.file = file
        self.line = line
    }

    /// APNs refused the notification.
    public static func rejected(_ response: APNsResponse, file: String = #fileID, line: Int = #line) -> APNsError {
        let reasonText = response.reason?.string ?? "no reason"
        return APNsError(
            code: .rejected,
            message: "APNs rejected the notification with \(response.status) \(reasonText)",
            reason: response.reason,
            response: response,
            file: file,
            line: line
        )
    }

    /// APNs never processed the request (safe to replay); `cause` says why, in the transport's words.
    public static func notSent(_ cause: String, file: String = #fileID, line: Int = #line) -> APNsError {
        APNsError(code: .notSent, message: "notification not sent: \(cause)", underlying: cause, file: file, line: line)
    }

    /// Whether sending the same notification again may succeed: always for ``Code/notSent`` and
    /// the transport failures (``Code/connectionFailed``, ``Code/timedOut``,
    /// ``Code/connectionLost``), per Apple's retry matrix for ``Code/rejected``, never for errors
    /// raised before sending.
    public var isRetriable: Bool {
        switch code {
        case .notSent, .connectionFailed, .timedOut, .connectionLost: return true
        case .rejected: return (response?.retryPolicy ?? .never) != .never
        default: return false
        }
    }

    public var description: String {
        var text = "APNsError.\(code): \(message)"
        if let underlying, code != .notSent { text += " (\(underlying))" }
        return text + " [\(file):\(line)]"
    }
}
