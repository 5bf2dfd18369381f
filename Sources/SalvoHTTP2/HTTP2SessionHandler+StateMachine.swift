extension HTTP2SessionHandler {
    /// Client connection lifecycle and stream credit, free of NIO and nghttp2 so it can be tested
    /// alone. nghttp2 enforces the protocol; this decides what the layer above is told and
    /// whether a new request may be submitted at all.
    struct StateMachine: Sendable {
        enum State: Equatable, Sendable {
            /// Handler added, channel not active yet: requests queue in nghttp2.
            case idle
            case active
            /// GOAWAY received: streams up to `lastStreamID` may finish, nothing new starts.
            case goingAway(lastStreamID: Int32)
            case closed
        }

        enum SubmitAction: Equatable, Sendable {
            case submit
            /// Fail the request as `.notSent` with this reason.
            case refuse(String)
        }

        enum CreditAction: Equatable, Sendable {
            case none
            /// Tell the layer above that free credit went from zero to positive.
            case creditAvailable(HTTP2StreamCredit)
        }

        private(set) var state: State = .idle
        private(set) var credit: HTTP2StreamCredit
        /// Whether free credit reached zero since it was last reported available.
        private var exhausted = false

        init(assumedPeerMaxConcurrentStreams: Int) {
            self.credit = HTTP2StreamCredit(maxConcurrentStreams: assumedPeerMaxConcurrentStreams, openStreams: 0)
        }

        mutating func channelActive() {
            if self.state == .idle { self.state = .active }
        }

        mutating func submitRequest() -> SubmitAction {
            switch self.state {
            case .idle, .active:
                self.credit.openStreams += 1
                if self.credit.available == 0 { self.exhausted = true }
                return .submit
            case .goingAway(let lastStreamID):
                return .refuse("GOAWAY received (last stream id \(lastStreamID))")
            case .closed:
                return .refuse("connection closed")
            }
        }

        /// A submitted request's stream closed or was dropped before being sent.
        mutating func streamFinished() -> CreditAction {
            self.credit.openStreams = max(0, self.credit.openStreams - 1)
            return self.reportIfAvailable()
        }

        mutating func remoteSettingsChanged(maxConcurrentStreams: Int) -> CreditAction {
            self.credit.maxConcurrentStreams = maxConcurrentStreams
            if self.credit.available == 0 { self.exhausted = true }
            return self.reportIfAvailable()
        }

        mutating func goAwayReceived(lastStreamID: Int32) {
            switch self.state {
            case .idle, .active:
                self.state = .goingAway(lastStreamID: lastStreamID)
            case .goingAway(let previous):
                // A later GOAWAY may only lower the last stream id.
                self.state = .goingAway(lastStreamID: min(previous, lastStreamID))
            case .closed:
                break
            }
        }

        mutating func channelInactive() {
            self.state = .closed
        }

        /// Whether a request on `streamID` was cut off by a received GOAWAY (so never processed).
        func isAboveGoAway(streamID: Int32) -> Bool {
            if case .goingAway(let lastStreamID) = self.state { return streamID > lastStreamID }
            return false
        }

        private mutating func reportIfAvailable() -> CreditAction {
            guard self.exhausted, self.credit.available > 0 else { return .none }
            switch self.state {
            case .idle, .active:
                self.exhausted = false
                return .creditAvailable(self.credit)
            case .goingAway, .closed:
                return .none
            }
        }
    }
}
