import SalvoAPNs

extension DeadLetterReason {
    /// APNs reset the request's stream with PROTOCOL_ERROR, again after a replay: HTTP/2 refuses
    /// the request itself (a header value it forbids that validation missed, say).
    package static let streamProtocolErrorCode = "stream_protocol_error"

    /// The notification's stream was reset with PROTOCOL_ERROR `replays + 1` times.
    package static func streamProtocolError(_ error: APNsError, replays: Int) -> DeadLetterReason {
        let times = replays == 0 ? "once" : "on \(replays + 1) sends"
        return DeadLetterReason(code: streamProtocolErrorCode, message: "\(error.message), \(times)")
    }

    /// The `reason` label of its metrics: Apple's reason when it is a documented one, `other` for
    /// any other (whoever answers chooses that string), or the code when APNs gave none.
    package var metricLabel: String {
        apnsReason.map(APNsReason.metricLabel) ?? code
    }
}
