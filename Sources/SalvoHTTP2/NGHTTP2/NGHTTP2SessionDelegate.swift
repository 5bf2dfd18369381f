import NIOCore

/// What an `NGHTTP2Session` reports from inside nghttp2's callbacks. Streams are named by the
/// slot the owner chose (`submitRequest(headers:shared:hasBody:slot:)`,
/// `sessionPeerOpenedStream`), which nghttp2 carries as the stream's user data.
///
/// Every method runs inside `nghttp2_session_mem_recv` or `nghttp2_session_mem_send`, so an
/// implementation only records state and must not call back into the session or into code that
/// might (promises, pipeline events): it acts on what it recorded after the call returns.
protocol NGHTTP2SessionDelegate: AnyObject {
    /// Server: the peer opened a request stream; the returned slot names it from now on.
    func sessionPeerOpenedStream(streamID: Int32) -> Int
    /// A complete header block (HEADERS plus CONTINUATION). `status` is the parsed `:status` of a
    /// response, which is not repeated in `headers`.
    func sessionReceivedHeaders(slot: Int, status: Int?, headers: HTTP2Headers, endStream: Bool)
    /// Client: the header block about to be reported outgrew `maxHeaderListSize`; the fields
    /// beyond the bound were dropped. (A server resets such a stream instead.)
    func sessionHeaderBlockTooLarge(slot: Int)
    /// The peer sent RST_STREAM for the stream; `sessionStreamClosed` follows with its code.
    func sessionPeerResetStream(slot: Int)
    /// DATA payload bytes, valid only for the duration of the call.
    func sessionReceivedData(slot: Int, bytes: UnsafeRawBufferPointer)
    /// A DATA frame carried END_STREAM (HEADERS report it through `endStream`).
    func sessionPeerEndedStream(slot: Int)
    /// nghttp2 closed the stream; `errorCode` is the RST_STREAM code, or `.noError`.
    func sessionStreamClosed(slot: Int, errorCode: HTTP2ErrorCode)
    /// A request's HEADERS were dropped before being written (GOAWAY received, cancelled while
    /// queued, session closing). nghttp2 had not opened the stream, so only its ID is known.
    func sessionDroppedHeaders(streamID: Int32, libraryErrorCode: Int32)
    /// Hands the body still to be sent on `slot` to the session (moved out, no copy).
    func sessionTakeOutboundBody(slot: Int) -> ByteBuffer?
    /// Gives back what did not fit into the current DATA frame.
    func sessionReturnOutboundBody(slot: Int, _ rest: ByteBuffer)
    /// The peer's SETTINGS were applied (not an ACK).
    func sessionReceivedSettings()
    /// The peer acknowledged our SETTINGS.
    func sessionReceivedSettingsAck()
    func sessionReceivedGoAway(_ goAway: HTTP2GoAway)
    func sessionReceivedPingAck(data: UInt64)
}
