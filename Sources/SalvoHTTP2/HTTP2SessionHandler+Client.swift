import NIOCore
import SalvoPrimitives

extension HTTP2SessionHandler {
    /// Client: queues a request. `promise` completes with the response once the server ends the
    /// stream, or fails with an `HTTP2Error` (`.notSent` is safe to replay). The request goes out
    /// with the next flush: call `flush()` after a batch, or let the end of the read burst or
    /// event-loop tick send it.
    ///
    /// - Parameter deadline: when passed before the server ended the response, the caller gets
    ///   `.timeout` and the stream is reset with CANCEL (a stream the server already ended is
    ///   never reset).
    public func submit(_ request: HTTP2Request, deadline: NIODeadline? = nil, promise: EventLoopPromise<HTTP2Response>)
    {
        self.submit(
            headers: request.headers, shared: request.sharedHeaders, body: request.body, deadline: deadline,
            responder: .promise(promise))
    }

    /// Client, allocation-free: like `submit(_:deadline:promise:)`, but the answer goes to
    /// `responseDelegate` with `tag` (exactly once). The delegate must be set first.
    public func submit(_ request: HTTP2Request, deadline: NIODeadline? = nil, tag: UInt64) {
        self.submit(
            headers: request.headers, shared: request.sharedHeaders, body: request.body, deadline: deadline, tag: tag)
    }

    /// ``submit(_:deadline:tag:)`` from a request's parts (``HTTP2Request``'s fields): for a sender
    /// that keeps its header list and shared block from request to request and would otherwise
    /// build, copy and destroy a request value around each call (~250 instructions per request).
    public func submit(
        headers: HTTP2Headers, shared: HTTP2SharedHeaders?, body: ByteBuffer, deadline: NIODeadline? = nil, tag: UInt64
    ) {
        // An assertion, not a precondition: loading the weak delegate costs a side-table retain
        // and release, on every request in release builds.
        assert(self.responseDelegate != nil, "set responseDelegate before submitting tagged requests")
        self.submit(headers: headers, shared: shared, body: body, deadline: deadline, responder: .tag(tag))
    }

    private func submit(
        headers: HTTP2Headers, shared: HTTP2SharedHeaders?, body: ByteBuffer, deadline: NIODeadline?,
        responder: HTTP2Responder
    ) {
        guard self.mode == .client else {
            responder.complete(
                .failure(HTTP2Error(.invalidOperation, "requests can only be submitted in client mode")),
                delegate: self.responseDelegate)
            return
        }
        guard let session = self.session else {
            responder.complete(
                .failure(HTTP2Error(.notSent, "handler is not in a pipeline")), delegate: self.responseDelegate)
            return
        }
        if case .refuse(let reason) = self.stateMachine.submitRequest() {
            responder.complete(.failure(HTTP2Error(.notSent, reason)), delegate: self.responseDelegate)
            return
        }
        let hasBody = body.readableBytes > 0
        let slot = self.clientStreams.insert(
            HTTP2ClientStream(responder: responder, deadline: deadline, requestBody: hasBody ? body : nil))
        let streamID: Int32
        do throws(HTTP2Error) {
            streamID = try session.submitRequest(headers: headers, shared: shared, hasBody: hasBody, slot: slot)
        } catch {
            self.clientStreams.remove(slot)
            self.creditChanged(self.stateMachine.streamFinished())
            responder.complete(
                .failure(HTTP2Error(.notSent, error.message, libraryErrorCode: error.libraryErrorCode)),
                delegate: self.responseDelegate)
            return
        }
        self.clientStreams.update(slot) { $0.streamID = streamID }
        if let deadline { self.scheduleTimeout(at: deadline) }
        self.scheduleFlush()
    }

    /// Sends a PING (keepalive); its ACK arrives as `HTTP2Event.pingAcknowledged` with the
    /// round-trip time measured on the event loop's clock.
    public func ping(data: UInt64? = nil) throws(HTTP2Error) {
        guard let session = self.session, let context = self.context else {
            throw HTTP2Error(.invalidOperation, "handler is not in a pipeline")
        }
        let data = data ?? self.nextPingData
        self.nextPingData &+= 1
        try session.submitPing(data: data)
        // A peer that never answers must not grow this table without bound.
        if self.outstandingPings.count >= 64 { self.outstandingPings.removeAll(keepingCapacity: true) }
        self.outstandingPings[data] = context.eventLoop.now
        self.scheduleFlush()
    }

    // MARK: Called from the NGHTTP2SessionDelegate conformance

    func clientReceivedHeaders(slot: Int, status: Int?, headers: HTTP2Headers, endStream: Bool) {
        self.clientStreams.update(slot) { $0.receiveHeaders(status: status, headers: headers) }
        if endStream { self.completeResponse(slot: slot) }
    }

    func clientReceivedData(slot: Int, bytes: UnsafeRawBufferPointer) {
        let maxBodySize = self.configuration.maxBodySize
        self.clientStreams.update(slot) { stream in
            let received = stream.body?.readableBytes ?? 0
            guard !stream.bodyOverflowed, received + bytes.count <= maxBodySize else {
                stream.bodyOverflowed = true
                stream.body = nil
                return
            }
            if stream.body == nil { stream.body = ByteBufferAllocator().buffer(capacity: bytes.count) }
            stream.body!.writeBytes(bytes)
        }
    }

    func completeResponse(slot: Int) {
        if let answer = self.clientStreams.update(slot, { $0.takeBareAnswer() }) ?? nil {
            self.pendingAnswers.append(answer)
        } else if let completion = self.clientStreams.update(slot, { $0.takeCompletion() }) ?? nil {
            self.enqueue(completion)
        }
    }

    /// Queues an answer that is not bare (see ``HTTP2PendingAnswer``), in order with the rest.
    func enqueue(_ completion: consuming HTTP2PendingCompletion) {
        self.pendingAnswers.append(.completion)
        self.pendingCompletions.append(completion)
    }

    func clientStreamClosed(slot: Int, errorCode: HTTP2ErrorCode) {
        guard let stream = self.clientStreams.remove(slot) else { return }
        self.creditChanged(self.stateMachine.streamFinished())
        guard let responder = stream.responder else { return }
        let streamID = stream.streamID
        let error: HTTP2Error
        if self.stateMachine.isAboveGoAway(streamID: streamID) {
            error = HTTP2Error(.notSent, "stream \(streamID) above GOAWAY last stream id", http2ErrorCode: errorCode)
        } else if errorCode == .refusedStream {
            error = HTTP2Error(.notSent, "stream \(streamID) refused by the server", http2ErrorCode: errorCode)
        } else if stream.resetByPeer || errorCode == .noError {
            error = HTTP2Error(.streamReset, "stream \(streamID) closed before a response", http2ErrorCode: errorCode)
        } else {
            // nghttp2 reset it: the server's frames on this stream broke HTTP/2's rules (say, a
            // malformed response header block). Not the request's fault, unlike a server's reset.
            error = HTTP2Error(
                .invalidResponse, "stream \(streamID) reset by the client: the server's response broke HTTP/2's rules",
                http2ErrorCode: errorCode)
        }
        self.enqueue(.failure(responder, error))
    }

    /// A request nghttp2 never opened (so it carries no slot): found by a walk, which only
    /// GOAWAY, a cancelled queued request or a closing session cause.
    func clientDroppedHeaders(streamID: Int32, libraryErrorCode: Int32) {
        guard let slot = self.clientStreams.firstSlot(where: { $0.streamID == streamID }),
            let stream = self.clientStreams.remove(slot)
        else { return }
        self.creditChanged(self.stateMachine.streamFinished())
        guard let responder = stream.responder else { return }
        self.enqueue(
            .failure(
                responder,
                HTTP2Error(.notSent, "request on stream \(streamID) never sent", libraryErrorCode: libraryErrorCode)))
    }

    func clientReceivedSettings(_ settings: HTTP2RemoteSettings) {
        self.creditChanged(self.stateMachine.remoteSettingsChanged(maxConcurrentStreams: settings.maxConcurrentStreams))
    }

    func clientReceivedPingAck(data: UInt64) {
        guard let sent = self.outstandingPings.removeValue(forKey: data), let context = self.context else { return }
        self.pendingEvents.append(
            .pingAcknowledged(HTTP2PingAck(data: data, roundTripTime: context.eventLoop.now - sent)))
    }

    /// Fails every caller still waiting, for a connection that is gone. Requests nghttp2 never
    /// opened (still queued, so no HEADERS byte was produced) are `.notSent`; the others may
    /// have been processed.
    func failAllStreams() {
        guard !self.clientStreams.isEmpty else { return }
        for slot in self.clientStreams.occupiedSlots {
            guard let stream = self.clientStreams[slot], let responder = stream.responder else { continue }
            let streamID = stream.streamID
            let opened = self.session?.hasOpened(streamID: streamID) ?? true
            let error =
                !opened || self.stateMachine.isAboveGoAway(streamID: streamID)
                ? HTTP2Error(.notSent, "connection closed before stream \(streamID) was sent")
                : HTTP2Error(.connectionLost, "connection closed before the response on stream \(streamID) ended")
            self.enqueue(.failure(responder, error))
        }
        self.clientStreams.removeAll()
    }

    private func creditChanged(_ action: StateMachine.CreditAction) {
        if case .creditAvailable(let credit) = action { self.pendingEvents.append(.streamCreditAvailable(credit)) }
    }

    // MARK: Deadlines: one timer for all streams, set to the earliest deadline

    private func scheduleTimeout(at deadline: NIODeadline) {
        if let current = self.timeoutDeadline, current <= deadline { return }
        guard let context = self.context else { return }
        self.timeoutTask?.cancel()
        self.timeoutDeadline = deadline
        self.timeoutTask = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            self.timeoutTask = nil
            self.timeoutDeadline = nil
            self.expireStreams()
        }
    }

    /// Fails every stream whose deadline passed, resets those the server has not ended, and
    /// re-arms the timer for the earliest remaining deadline.
    private func expireStreams() {
        guard let context = self.context, let session = self.session else { return }
        let now = context.eventLoop.now
        var earliest: NIODeadline?
        var expired: [Int] = []
        for slot in self.clientStreams.occupiedSlots {
            guard let stream = self.clientStreams[slot], stream.responder != nil, let deadline = stream.deadline else {
                continue
            }
            if deadline <= now {
                expired.append(slot)
            } else if earliest.map({ deadline < $0 }) ?? true {
                earliest = deadline
            }
        }
        for slot in expired {
            guard let stream = self.clientStreams[slot], let responder = stream.responder else { continue }
            let streamID = stream.streamID
            self.enqueue(
                .failure(responder, HTTP2Error(.timeout, "no response on stream \(streamID) before its deadline")))
            if !session.hasOpened(streamID: streamID) {
                // Still queued in nghttp2 (no stream credit yet): the reset below cancels it
                // unsent, and nghttp2 reports that only when the queue moves, so release its
                // credit now.
                self.clientStreams.remove(slot)
                self.creditChanged(self.stateMachine.streamFinished())
            } else {
                self.clientStreams.update(slot) { $0.responder = nil }
            }
            // Only streams with a waiting caller are here: the server has not ended them (a
            // stream the server ended was answered at once), so a CANCEL cannot trip
            // rapid-reset protection.
            try? session.submitReset(streamID: streamID, errorCode: .cancel)
        }
        if let earliest { self.scheduleTimeout(at: earliest) }
        self.deliverPending()
        self.flush()
    }
}
