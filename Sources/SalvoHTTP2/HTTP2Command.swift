import NIOCore

/// What can be written into an `HTTP2SessionHandler` from the handlers after it
/// (`context.write(NIOAny(command))` or `channel.write(command)`). Each case mirrors a method
/// on the handler; the write promise succeeds once the command is queued in nghttp2 and fails
/// with an `HTTP2Error` when it cannot be. Frames go out on the next flush.
public enum HTTP2Command: Sendable {
    /// Client: send a request; `response` completes with the response or an `HTTP2Error`.
    case request(HTTP2Request, deadline: NIODeadline?, response: EventLoopPromise<HTTP2Response>)
    /// Server: answer the request received on `streamID` (any order, any time later).
    case respond(streamID: Int32, HTTP2Response)
    /// Reset a stream (both modes).
    case resetStream(streamID: Int32, errorCode: HTTP2ErrorCode)
    /// Server: advertise a new SETTINGS_MAX_CONCURRENT_STREAMS.
    case setMaxConcurrentStreams(Int)
    /// Send GOAWAY with the last stream processed as last-stream-id.
    case goAway(errorCode: HTTP2ErrorCode, debugData: ByteBuffer)
    /// Send a PING; its ACK arrives as `HTTP2Event.pingAcknowledged`.
    case ping(data: UInt64)
}
