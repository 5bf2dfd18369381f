import SalvoHTTP2

extension APNsConnectionHandler {
    /// How a transport failure of one request reads to the pool and the worker: replayable
    /// (`notSent`), maybe delivered (`timedOut`, `connectionLost`), or refused by APNs's HTTP/2
    /// layer (`streamProtocolError`).
    static func apnsError(_ error: HTTP2Error) -> APNsError {
        switch error.code {
        case .notSent: return .notSent(error.message)
        case .timeout:
            return APNsError(
                code: .timedOut, message: "no answer from APNs before the deadline", underlying: error.message)
        case .streamReset where error.http2ErrorCode == .protocolError:
            // The server's reset, not ours (that is `.invalidResponse`): it refused the request.
            return APNsError(
                code: .streamProtocolError,
                message: "APNs reset the request's stream with PROTOCOL_ERROR (malformed request)",
                underlying: error.message)
        default: return .connectionLost(error.description)
        }
    }
}

extension APNsError {
    static func connectionFailed(_ cause: String) -> APNsError {
        APNsError(code: .connectionFailed, message: "cannot connect to APNs: \(cause)", underlying: cause)
    }

    static func connectionLost(_ cause: String) -> APNsError {
        APNsError(
            code: .connectionLost, message: "connection to APNs lost before the answer: \(cause)", underlying: cause)
    }
}
