/// One connection's life as the scenario shapes it, free of NIO so every rule is tested alone:
/// GOAWAY or reset after N streams, GOAWAY once only, and APNs's MAX_CONCURRENT_STREAMS dance
/// (lowered to 1 after a rejected request, restored after the next success), and the token
/// connection's start at one stream until a request with a valid provider token is answered
/// (Apple: "APNs allows only one stream until you post a request with a valid authentication
/// token").
struct MockConnectionStateMachine: Sendable {
    enum State: Sendable, Equatable {
        case serving
        /// GOAWAY sent: requests already delivered are still answered.
        case goingAway
        /// Reset or closed: nothing more is answered.
        case closed
    }

    enum StreamAction: Sendable, Equatable {
        case answer
        /// Answer, and send GOAWAY now (this stream reached `goaway.every_streams`).
        case answerThenGoAway
        /// Reset the connection now (this stream reached `connection_reset.every_streams`).
        case resetConnection
        /// The connection is closed: drop the request.
        case drop
    }

    enum AnswerAction: Sendable, Equatable {
        case none
        case lowerMaxConcurrentStreams
        /// Advertise this value again.
        case restoreMaxConcurrentStreams(Int)
    }

    private(set) var state: State = .serving
    private(set) var streamsReceived = 0
    /// Whether MAX_CONCURRENT_STREAMS is lowered to 1 now.
    private(set) var isStreamLimitLowered = false
    /// The value advertised when the connection opened (restored after a success).
    let advertisedMaxConcurrentStreams: Int

    /// Whether the connection still advertises one stream because no request with a valid
    /// provider token has been answered yet.
    private(set) var awaitsValidToken: Bool

    /// - Parameter startsWithOneStream: a token connection, whose session was set up to
    ///   advertise one stream.
    init(advertisedMaxConcurrentStreams: Int, startsWithOneStream: Bool = false) {
        self.advertisedMaxConcurrentStreams = advertisedMaxConcurrentStreams
        self.awaitsValidToken = startsWithOneStream
    }

    /// The connection turned out not to use provider tokens (a client certificate, or no
    /// authentication at all): it opens up at once.
    mutating func needsNoToken() -> AnswerAction {
        guard self.awaitsValidToken, self.state != .closed else { return .none }
        self.awaitsValidToken = false
        return .restoreMaxConcurrentStreams(self.advertisedMaxConcurrentStreams)
    }

    mutating func streamReceived(goAwayEvery: Int?, resetEvery: Int?) -> StreamAction {
        guard self.state != .closed else { return .drop }
        self.streamsReceived += 1
        if let resetEvery, self.streamsReceived >= resetEvery {
            self.state = .closed
            return .resetConnection
        }
        if let goAwayEvery, self.streamsReceived >= goAwayEvery, self.state == .serving {
            self.state = .goingAway
            return .answerThenGoAway
        }
        return .answer
    }

    /// A GOAWAY is wanted (timer, Shutdown answer, operator): true when it should be sent now.
    mutating func goAwayRequested() -> Bool {
        guard self.state == .serving else { return false }
        self.state = .goingAway
        return true
    }

    /// A reset is wanted (timer, operator): true when the connection should be reset now.
    mutating func resetRequested() -> Bool {
        guard self.state != .closed else { return false }
        self.state = .closed
        return true
    }

    mutating func closed() {
        self.state = .closed
    }

    /// An answer was sent; `accepted` is whether it was a 200.
    /// - Parameter tokenValidated: whether the connection has had a request with a valid provider
    ///   token by now (this one or an earlier one).
    mutating func answered(
        accepted: Bool, dropStreamsAfterRejection: Bool, tokenValidated: Bool = false
    ) -> AnswerAction {
        guard self.state != .closed else { return .none }
        if self.awaitsValidToken {
            guard tokenValidated else { return .none }
            self.awaitsValidToken = false
            if !accepted && dropStreamsAfterRejection {
                // Stays at one stream, now for the rejection: the next success restores it.
                self.isStreamLimitLowered = true
                return .none
            }
            return .restoreMaxConcurrentStreams(self.advertisedMaxConcurrentStreams)
        }
        if accepted {
            guard self.isStreamLimitLowered else { return .none }
            self.isStreamLimitLowered = false
            return .restoreMaxConcurrentStreams(self.advertisedMaxConcurrentStreams)
        }
        guard dropStreamsAfterRejection, !self.isStreamLimitLowered else { return .none }
        self.isStreamLimitLowered = true
        return .lowerMaxConcurrentStreams
    }
}
