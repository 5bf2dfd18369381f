/// What an `NGHTTP2Session` reports from inside nghttp2's callbacks.
///
/// Every method runs inside `nghttp2_session_mem_recv` or `nghttp2_session_mem_send`, so an
/// implementation only records state and must not call back into the session or into code that
/// might (promises, pipeline events): it acts on what it recorded after the call returns.
protocol NGHTTP2SessionDelegate: AnyObject {
    /// A complete header block (HEADERS plus CONTINUATION). `status` is the parsed `:status` of a
    /// response, which is not repeated in `headers`.
    func sessionReceivedHeaders(streamID: Int32, status: Int?, headers: HTTP2Headers, endStream: Bool)
    /// DATA payload bytes, valid only for the duration of the call.
    func sessionReceivedData(streamID: Int32, bytes: UnsafeRawBufferPointer)
    /// A DATA frame carried END_STREAM (HEADERS report it through `endStream`).
    func sessionPeerEndedStream(streamID: Int32)
    /// nghttp2 closed the stream; `errorCode` is the RST_STREAM code, or `.noError`.
    func sessionStreamClosed(streamID: Int32, errorCode: HTTP2ErrorCode)
    /// A HEADERS frame we submitted was dropped before being written (GOAWAY received, stream
    /// cancelled while queued, session closing).
    func sessionDroppedHeaders(streamID: Int32, libraryErrorCode: Int32)
    /// The peer's SETTINGS were applied (not an ACK).
    func sessionReceivedSettings()
    /// The peer acknowledged our SETTINGS.
    func sessionReceivedSettingsAck()
    func sessionReceivedGoAway(_ goAway: HTTP2GoAway)
    func sessionReceivedPingAck(data: UInt64)
}
