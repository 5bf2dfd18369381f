/// What an `HTTP2SessionHandler` tells the handlers after it, as user inbound events
/// (`userInboundEventTriggered`), so a connection or mock server reacts without subclassing.
/// Fired after nghttp2 has returned, never from inside one of its callbacks.
public enum HTTP2Event: Sendable, Equatable {
    /// The peer sent SETTINGS (the first one, and every change after it).
    case remoteSettingsChanged(HTTP2RemoteSettings)
    /// Client: free stream credit went from zero to positive (a stream finished, or the peer
    /// raised SETTINGS_MAX_CONCURRENT_STREAMS). A pool routing by free credit resumes here.
    case streamCreditAvailable(HTTP2StreamCredit)
    /// The peer sent GOAWAY. Streams above `lastStreamID` fail as `.notSent`; new requests are
    /// refused; the connection closes when the remaining streams finish.
    case goAwayReceived(HTTP2GoAway)
    /// The peer acknowledged a PING this handler sent.
    case pingAcknowledged(HTTP2PingAck)
    /// The peer acknowledged our SETTINGS (e.g. a lowered MAX_CONCURRENT_STREAMS is in force).
    case localSettingsAcknowledged
}
