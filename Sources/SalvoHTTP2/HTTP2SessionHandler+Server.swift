import NIOCore

extension HTTP2SessionHandler {
    /// Server: answers the request received on `streamID`. Responses may come in any order and
    /// any time later; a stream the client reset meanwhile fails with `.invalidOperation`.
    /// Like every control below, it goes out with the next flush (at the latest at the end of
    /// this event-loop tick), so responses due at the same time share one write.
    public func respond(streamID: Int32, _ response: HTTP2Response) throws(HTTP2Error) {
        guard self.mode == .server else { throw HTTP2Error(.invalidOperation, "responses can only be sent in server mode") }
        guard let session = self.session else { throw HTTP2Error(.invalidOperation, "handler is not in a pipeline") }
        guard self.serverStreams[streamID]?.delivered == true else {
            throw HTTP2Error(.invalidOperation, "stream \(streamID) is not an open request stream")
        }
        try session.submitResponse(streamID: streamID, response)
        self.scheduleFlush()
    }

    /// Resets a stream (server: refuse or abort a request; client: abandon one).
    public func resetStream(streamID: Int32, errorCode: HTTP2ErrorCode) throws(HTTP2Error) {
        guard let session = self.session else { throw HTTP2Error(.invalidOperation, "handler is not in a pipeline") }
        try session.submitReset(streamID: streamID, errorCode: errorCode)
        self.scheduleFlush()
    }

    /// Server: advertises a new SETTINGS_MAX_CONCURRENT_STREAMS. nghttp2 enforces it once the
    /// client acknowledges (`HTTP2Event.localSettingsAcknowledged`).
    public func setMaxConcurrentStreams(_ value: Int) throws(HTTP2Error) {
        guard let session = self.session else { throw HTTP2Error(.invalidOperation, "handler is not in a pipeline") }
        guard (0...Int(UInt32.max)).contains(value) else {
            throw HTTP2Error(.invalidOperation, "maxConcurrentStreams \(value) out of range")
        }
        try session.submitSettings([(.maxConcurrentStreams, UInt32(value))])
        self.scheduleFlush()
    }

    /// Sends GOAWAY. By default last-stream-id is the last stream processed, so requests
    /// already delivered may still be answered; the connection closes once they are.
    public func goAway(errorCode: HTTP2ErrorCode = .noError, debugData: ByteBuffer = ByteBuffer(), lastStreamID: Int32? = nil)
        throws(HTTP2Error)
    {
        guard let session = self.session else { throw HTTP2Error(.invalidOperation, "handler is not in a pipeline") }
        try session.submitGoAway(
            lastStreamID: lastStreamID ?? session.lastProcessedStreamID, errorCode: errorCode, debugData: debugData)
        self.scheduleFlush()
    }

    // MARK: Called from the NGHTTP2SessionDelegate conformance

    func serverReceivedHeaders(streamID: Int32, headers: HTTP2Headers, endStream: Bool) {
        if let index = self.serverStreams.index(forKey: streamID) {
            self.serverStreams.values[index].headers.add(contentsOf: headers)  // trailers
            if endStream { self.deliverRequest(at: index, streamID: streamID) }
            return
        }
        self.totalStreamCount += 1
        self.serverStreams[streamID] = HTTP2ServerStream(headers: headers)
        if endStream, let index = self.serverStreams.index(forKey: streamID) {
            self.deliverRequest(at: index, streamID: streamID)
        }
    }

    func serverReceivedData(streamID: Int32, bytes: UnsafeRawBufferPointer) {
        guard let index = self.serverStreams.index(forKey: streamID) else { return }
        guard self.serverStreams.values[index].body.readableBytes + bytes.count <= self.configuration.maxBodySize else {
            try? self.session?.submitReset(streamID: streamID, errorCode: .cancel)
            return
        }
        self.serverStreams.values[index].body.writeBytes(bytes)
    }

    func serverPeerEndedStream(streamID: Int32) {
        guard let index = self.serverStreams.index(forKey: streamID) else { return }
        self.deliverRequest(at: index, streamID: streamID)
    }

    func serverStreamClosed(streamID: Int32) {
        self.serverStreams.removeValue(forKey: streamID)
    }

    private func deliverRequest(at index: Dictionary<Int32, HTTP2ServerStream>.Index, streamID: Int32) {
        guard !self.serverStreams.values[index].delivered else { return }
        self.serverStreams.values[index].delivered = true
        let stream = self.serverStreams.values[index]
        self.pendingRequests.append(
            HTTP2ReceivedRequest(streamID: streamID, request: HTTP2Request(headers: stream.headers, body: stream.body)))
        // The stream stays tracked (for `respond` and the open count) until nghttp2 closes it.
        self.serverStreams.values[index].headers = HTTP2Headers()
        self.serverStreams.values[index].body = ByteBuffer()
    }
}
