/// How one notification ended, as the pool reports it.
///
/// Replays of requests APNs never processed happen inside the pool; an outcome is final for the
/// pool. What to do next is the caller's (the worker's retry matrix).
public enum APNsOutcome: Sendable {
    /// APNs accepted the notification. `apnsID` is the id sent, or the one APNs assigned;
    /// `uniqueID` is the sandbox's `apns-unique-id`.
    case accepted(apnsID: APNsID?, uniqueID: APNsID?)
    /// APNs refused it: status, reason and (for 410) the timestamp are in the response.
    case rejected(APNsResponse)
    /// No answer from APNs. The error's code says whether it could have been delivered:
    /// ``APNsError/Code/notSent`` (never processed; replays exhausted, queue full or timed out,
    /// pool shut down) versus ``APNsError/Code/timedOut`` and ``APNsError/Code/connectionLost``
    /// (it left and no answer came). Signing failures of token credentials also land here.
    case failed(APNsError)

    public var isAccepted: Bool {
        if case .accepted = self { return true }
        return false
    }

    /// APNs's answer to a rejected notification.
    public var rejection: APNsResponse? {
        if case .rejected(let response) = self { return response }
        return nil
    }

    /// Why no answer came.
    public var error: APNsError? {
        if case .failed(let error) = self { return error }
        return nil
    }
}
