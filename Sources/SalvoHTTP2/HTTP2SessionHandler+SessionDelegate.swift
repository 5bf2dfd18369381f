/// Routes nghttp2's callbacks to the client or server half. Everything here only records state.
extension HTTP2SessionHandler: NGHTTP2SessionDelegate {
    func sessionReceivedHeaders(streamID: Int32, status: Int?, headers: HTTP2Headers, endStream: Bool) {
        switch self.mode {
        case .client: self.clientReceivedHeaders(streamID: streamID, status: status, headers: headers, endStream: endStream)
        case .server: self.serverReceivedHeaders(streamID: streamID, headers: headers, endStream: endStream)
        }
    }

    func sessionReceivedData(streamID: Int32, bytes: UnsafeRawBufferPointer) {
        switch self.mode {
        case .client: self.clientReceivedData(streamID: streamID, bytes: bytes)
        case .server: self.serverReceivedData(streamID: streamID, bytes: bytes)
        }
    }

    func sessionPeerEndedStream(streamID: Int32) {
        switch self.mode {
        case .client: self.clientPeerEndedStream(streamID: streamID)
        case .server: self.serverPeerEndedStream(streamID: streamID)
        }
    }

    func sessionStreamClosed(streamID: Int32, errorCode: HTTP2ErrorCode) {
        switch self.mode {
        case .client: self.clientStreamClosed(streamID: streamID, errorCode: errorCode)
        case .server: self.serverStreamClosed(streamID: streamID)
        }
    }

    func sessionDroppedHeaders(streamID: Int32, libraryErrorCode: Int32) {
        // A server's dropped response needs nothing: the stream is closed and reported there.
        if self.mode == .client { self.clientDroppedHeaders(streamID: streamID, libraryErrorCode: libraryErrorCode) }
    }

    func sessionReceivedSettings() {
        guard let settings = self.session?.remoteSettings else { return }
        self.pendingEvents.append(.remoteSettingsChanged(settings))
        if self.mode == .client { self.clientReceivedSettings(settings) }
    }

    func sessionReceivedSettingsAck() {
        self.pendingEvents.append(.localSettingsAcknowledged)
    }

    func sessionReceivedGoAway(_ goAway: HTTP2GoAway) {
        self.lastGoAwayReceived = goAway
        self.stateMachine.goAwayReceived(lastStreamID: goAway.lastStreamID)
        self.pendingEvents.append(.goAwayReceived(goAway))
    }

    func sessionReceivedPingAck(data: UInt64) {
        self.clientReceivedPingAck(data: data)
    }
}
