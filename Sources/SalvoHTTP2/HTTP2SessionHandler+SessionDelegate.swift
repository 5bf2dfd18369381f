import NIOCore
import SalvoPrimitives

/// Routes nghttp2's callbacks to the client or server half. Everything here only records state.
extension HTTP2SessionHandler: NGHTTP2SessionDelegate {
    func sessionPeerOpenedStream(streamID: Int32) -> Int {
        self.totalStreamCount += 1
        return self.serverStreams.insert(HTTP2ServerStream(streamID: streamID))
    }

    func sessionReceivedHeaders(slot: Int, status: Int?, headers: HTTP2Headers, endStream: Bool) {
        switch self.mode {
        case .client: self.clientReceivedHeaders(slot: slot, status: status, headers: headers, endStream: endStream)
        case .server: self.serverReceivedHeaders(slot: slot, headers: headers, endStream: endStream)
        }
    }

    func sessionHeaderBlockTooLarge(slot: Int) {
        if self.mode == .client { self.clientStreams.update(slot) { $0.headersTooLarge = true } }
    }

    func sessionPeerResetStream(slot: Int) {
        if self.mode == .client { self.clientStreams.update(slot) { $0.resetByPeer = true } }
    }

    func sessionReceivedData(slot: Int, bytes: UnsafeRawBufferPointer) {
        switch self.mode {
        case .client: self.clientReceivedData(slot: slot, bytes: bytes)
        case .server: self.serverReceivedData(slot: slot, bytes: bytes)
        }
    }

    func sessionPeerEndedStream(slot: Int) {
        switch self.mode {
        case .client: self.completeResponse(slot: slot)
        case .server: self.deliverRequest(slot: slot)
        }
    }

    func sessionStreamClosed(slot: Int, errorCode: HTTP2ErrorCode) {
        switch self.mode {
        case .client: self.clientStreamClosed(slot: slot, errorCode: errorCode)
        case .server: self.serverStreams.remove(slot)
        }
    }

    func sessionDroppedHeaders(streamID: Int32, libraryErrorCode: Int32) {
        // A server's dropped response needs nothing: the stream is closed and reported there.
        if self.mode == .client { self.clientDroppedHeaders(streamID: streamID, libraryErrorCode: libraryErrorCode) }
    }

    func sessionTakeOutboundBody(slot: Int) -> ByteBuffer? {
        switch self.mode {
        case .client:
            return self.clientStreams.update(slot) { stream in
                defer { stream.requestBody = nil }
                return stream.requestBody
            } ?? nil
        case .server:
            return self.serverStreams.update(slot) { stream in
                defer { stream.responseBody = nil }
                return stream.responseBody
            } ?? nil
        }
    }

    func sessionReturnOutboundBody(slot: Int, _ rest: ByteBuffer) {
        switch self.mode {
        case .client: self.clientStreams.update(slot) { $0.requestBody = rest }
        case .server: self.serverStreams.update(slot) { $0.responseBody = rest }
        }
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
