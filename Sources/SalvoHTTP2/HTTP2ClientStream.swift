import NIOCore

/// A client request in flight, from submission until nghttp2 closes its stream.
struct HTTP2ClientStream {
    /// Known once nghttp2 accepted the submission.
    var streamID: Int32
    /// What nghttp2 has not yet pulled into DATA frames.
    var requestBody: ByteBuffer?
    /// `nil` once the caller has been answered (response, timeout or error) while the stream
    /// may still be open, e.g. a body still being sent after the server ended its side.
    var responder: HTTP2Responder?
    var deadline: NIODeadline?
    var status: Int?
    var headers: HTTP2Headers
    var body: ByteBuffer?
    /// The response body outgrew `maxBodySize`: further bytes are dropped and the caller gets
    /// an error when the server ends the stream (no reset: it may already have ended it).
    var bodyOverflowed: Bool
    /// The response's header block outgrew `maxHeaderListSize` (fields beyond it were dropped):
    /// the caller gets `.invalidResponse` when the server ends the stream, again without a reset.
    var headersTooLarge: Bool
    /// The server reset the stream (RST_STREAM received), as opposed to nghttp2 resetting it
    /// because the server's frames on it broke HTTP/2's rules.
    var resetByPeer: Bool

    /// Inlined, every property assigned here: out of line, the initializer built the 138-byte
    /// value twice, copied one into the other and returned it through memory (~90 instructions
    /// per request more, `make bench-instructions`).
    @inline(__always)
    init(responder: HTTP2Responder, deadline: NIODeadline?, requestBody: ByteBuffer?) {
        self.streamID = 0
        self.requestBody = requestBody
        self.responder = responder
        self.deadline = deadline
        self.status = nil
        self.headers = HTTP2Headers()
        self.body = nil
        self.bodyOverflowed = false
        self.headersTooLarge = false
        self.resetByPeer = false
    }

    /// Records a response's (final) header block, or appends trailers; 1xx responses are
    /// informational and ignored. One call, so the dictionary entry is accessed once.
    mutating func receiveHeaders(status: Int?, headers: HTTP2Headers) {
        if let status {
            guard status >= 200 else { return }
            self.status = status
            self.headers = headers
        } else {
            self.headers.add(contentsOf: headers)
        }
    }

    /// The answer of a tagged request whose response is a status and nothing else (no kept
    /// header, no body, no overflow): taken as two words, without an `HTTP2Response`. Nil, and
    /// nothing taken, otherwise: ``takeCompletion()`` answers those.
    mutating func takeBareAnswer() -> HTTP2PendingAnswer? {
        guard case .tag(let tag)? = self.responder, let status = self.status, self.headers.isEmpty,
            self.body == nil, !self.headersTooLarge, !self.bodyOverflowed
        else { return nil }
        self.responder = nil
        return .bare(tag: tag, status: status)
    }

    /// Takes the caller's responder and the response assembled so far (moving the buffers out),
    /// once: later calls return `nil`.
    mutating func takeCompletion() -> HTTP2PendingCompletion? {
        guard let responder = self.responder else { return nil }
        self.responder = nil
        if self.headersTooLarge {
            self.body = nil
            return .failure(
                responder,
                HTTP2Error(.invalidResponse, "response headers on stream \(self.streamID) exceed maxHeaderListSize"))
        }
        if self.bodyOverflowed {
            self.body = nil
            return .failure(
                responder, HTTP2Error(.invalidOperation, "response body on stream \(self.streamID) too large"))
        }
        guard let status = self.status else {
            return .failure(responder, HTTP2Error(.invalidResponse, "stream ended without a response status"))
        }
        let response = HTTP2Response(status: status, headers: self.headers, body: self.body)
        self.headers = HTTP2Headers()
        self.body = nil
        return .success(responder, response)
    }
}
