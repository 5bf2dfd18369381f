import SalvoAPNs

/// What became of one send, as the APNs pool reports it. Keeps *rejected* (APNs answered) apart
/// from *not sent* (APNs never processed the request), because only the second is always safe to
/// replay at once.
package enum DeliveryResult: Sendable {
    /// APNs answered 200.
    case accepted
    /// APNs answered with an error status.
    case rejected(APNsResponse)
    /// APNs never processed the request: refused stream, GOAWAY above the last stream id,
    /// connection lost before a response. `cause` is the transport's description.
    case notSent(cause: String)
    /// No answer came although APNs may have processed the request (timed out, connection lost
    /// after sending), or the send could not be prepared for a reason that may pass (connecting
    /// failed, the provider token could not be signed). Retried, so it may be delivered twice.
    case unanswered(APNsError)
    /// The request broke a rule before anything was sent (SalvoAPNs validation).
    case invalidRequest(APNsError)
    /// APNs's HTTP/2 layer reset the request's stream with PROTOCOL_ERROR: it found the request
    /// malformed (``APNsError/Code/streamProtocolError``). The same bytes fail the same way.
    case streamProtocolError(APNsError)

    /// Maps the pool's answer: a 200 response is accepted, any other status rejected; an
    /// ``APNsError`` is not-sent, rejected (it carries the response) or invalid, by its code.
    package init(_ result: Result<APNsResponse, APNsError>) {
        switch result {
        case .success(let response) where response.isAccepted:
            self = .accepted
        case .success(let response):
            self = .rejected(response)
        case .failure(let error) where error.code == .notSent:
            self = .notSent(cause: error.underlying ?? error.message)
        case .failure(let error) where Self.unansweredCodes.contains(error.code):
            self = .unanswered(error)
        case .failure(let error) where error.code == .streamProtocolError:
            self = .streamProtocolError(error)
        case .failure(let error):
            if error.code == .rejected, let response = error.response {
                self = .rejected(response)
            } else {
                self = .invalidRequest(error)
            }
        }
    }

    /// Failures that say nothing about the request itself, so a later attempt can succeed.
    static let unansweredCodes: Set<APNsError.Code> = [.timedOut, .connectionLost, .connectionFailed, .signingFailed]
}
