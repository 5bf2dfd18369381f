import NIOCore
import SalvoPrimitives

extension HTTP2SessionHandler {
    /// Server: answers the request received on `streamID`. Responses may come in any order and
    /// any time later; a stream the client reset meanwhile fails with `.invalidOperation`.
    /// Like every control below, it goes out with the next flush (at the latest at the end of
    /// this event-loop tick), so responses due at the same time share one write.
    public func respond(streamID: Int32, _ response: HTTP2Response) throws(HTTP2Error) {
        guard self.mode == .server else {
            throw HTTP2Error(.invalidOperation, "responses can only be sent in server mode")
        }
        guard let session = self.session else { throw HTTP2Error(.invalidOperation, "handler is not in a pipeline") }
        guard let slot = session.slot(forStreamID: streamID), let stream = self.serverStreams[slot],
            stream.streamID == streamID, stream.delivered, !stream.answered
        else {
            throw HTTP2Error(.invalidOperation, "stream \(streamID) is not an open request stream")
        }
        self.serverStreams.update(slot) {
            $0.answered = true
            $0.responseBody = response.body
        }
        try session.submitResponse(streamID: streamID, response, slot: slot)
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
    public func goAway(
        errorCode: HTTP2ErrorCode = .noError, debugData: ByteBuffer = ByteBuffer(), lastStreamID: Int32? = nil
    )
        throws(HTTP2Error)
    {
        guard let session = self.session else { throw HTTP2Error(.invalidOperation, "handler is not in a pipeline") }
        try session.submitGoAway(
            lastStreamID: lastStreamID ?? session.lastProcessedStreamID, errorCode: errorCode, debugData: debugData)
        self.scheduleFlush()
    }

    // MARK: Called from the NGHTTP2SessionDelegate conformance

    func serverReceivedHeaders(slot: Int, headers: HTTP2Headers, endStream: Bool) {
        let isFirstBlock = self.serverStreams.update(slot) { stream in
            if stream.headers.isEmpty {
                stream.headers = headers
                return true
            }
            stream.headers.add(contentsOf: headers)  // trailers
            return false
        }
        guard isFirstBlock != nil else { return }
        if endStream { self.deliverRequest(slot: slot) }
    }

    func serverReceivedData(slot: Int, bytes: UnsafeRawBufferPointer) {
        let maxBodySize = self.configuration.maxBodySize
        let fits = self.serverStreams.update(slot) { stream in
            guard stream.body.readableBytes + bytes.count <= maxBodySize else { return false }
            stream.body.writeBytes(bytes)
            return true
        }
        if fits == false, let streamID = self.serverStreams[slot]?.streamID {
            try? self.session?.submitReset(streamID: streamID, errorCode: .cancel)
        }
    }

    /// Hands a complete request to the next handler (after nghttp2 returns). The stream stays
    /// tracked, for `respond` and the open count, until nghttp2 closes it.
    func deliverRequest(slot: Int) {
        let request: HTTP2ReceivedRequest? =
            self.serverStreams.update(slot) { stream in
                guard !stream.delivered else { return nil }
                stream.delivered = true
                let request = HTTP2ReceivedRequest(
                    streamID: stream.streamID, request: HTTP2Request(headers: stream.headers, body: stream.body))
                stream.headers = HTTP2Headers()
                stream.body = ByteBuffer()
                return request
            } ?? nil
        if let request { self.pendingRequests.append(request) }
    }
}
