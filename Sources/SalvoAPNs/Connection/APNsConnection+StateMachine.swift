extension APNsConnection {
    /// One connection's life, free of NIO so it can be tested alone: setting up (TLS, the
    /// server's first SETTINGS), ready, draining after a GOAWAY, closed; and the idle PING
    /// keepalive. The handler feeds it events and timer firings and executes the actions.
    struct StateMachine: Sendable, Equatable {
        enum State: Sendable, Equatable {
            /// Waiting for the TLS handshake (if any) and the server's first SETTINGS.
            case connecting
            case ready(Keepalive)
            /// GOAWAY received or sent: no new requests, in-flight ones finish.
            case draining(Keepalive)
            /// We decided to close (failed setup, unanswered PING); waiting for the channel to go.
            case closing(wasReady: Bool)
            case closed
        }

        /// The idle check: a timer fires every keepalive interval; a connection that saw no
        /// frame since the last firing sends a PING and must see its ACK within the timeout.
        enum Keepalive: Sendable, Equatable {
            case watching(sawTraffic: Bool)
            case awaitingPingAck
        }

        enum HandshakeAction: Sendable, Equatable {
            case none
            /// Close the connection: the server did not agree to HTTP/2.
            case fail(String)
        }

        enum SettingsAction: Sendable, Equatable {
            case none
            /// The connection is usable: report it ready and start the keepalive timer.
            case becameReady(maxConcurrentStreams: Int)
            case maxConcurrentStreamsChanged(Int)
        }

        enum DrainAction: Sendable, Equatable {
            case none
            /// Tell the pool to route nothing new here.
            case notifyDraining
            /// Send our own GOAWAY (we retire the connection), then tell the pool.
            case sendGoAwayAndNotify
            /// The connection was not ready yet: give up on it.
            case fail(String)
        }

        enum KeepaliveAction: Sendable, Equatable {
            case none
            /// Traffic was seen: check again after the interval.
            case scheduleCheck
            /// Idle: send a PING and wait for its ACK until the timeout.
            case sendPing
            /// The PING went unanswered: close the connection.
            case close(String)
        }

        enum CloseAction: Sendable, Equatable {
            case none
            /// The connection never became ready: fail its setup.
            case failConnect
            /// A ready or draining connection went away: tell the pool.
            case notifyClosed
        }

        private(set) var state: State = .connecting
        private var maxConcurrentStreams: Int?

        /// ALPN result of the TLS handshake (nil when the server chose no protocol).
        mutating func tlsHandshakeCompleted(negotiatedProtocol: String?) -> HandshakeAction {
            guard self.state == .connecting, negotiatedProtocol != "h2" else { return .none }
            return .fail(
                "the server negotiated \(negotiatedProtocol.map { "ALPN \"\($0)\"" } ?? "no ALPN protocol"), not h2")
        }

        /// The server sent SETTINGS (its first one, or a change).
        mutating func settingsReceived(maxConcurrentStreams: Int) -> SettingsAction {
            let previous = self.maxConcurrentStreams
            self.maxConcurrentStreams = maxConcurrentStreams
            switch self.state {
            case .connecting:
                self.state = .ready(.watching(sawTraffic: true))
                return .becameReady(maxConcurrentStreams: maxConcurrentStreams)
            case .ready, .draining:
                return previous == maxConcurrentStreams ? .none : .maxConcurrentStreamsChanged(maxConcurrentStreams)
            case .closing, .closed:
                return .none
            }
        }

        mutating func goAwayReceived() -> DrainAction {
            switch self.state {
            case .connecting:
                self.state = .closing(wasReady: false)
                return .fail("the server sent GOAWAY before the connection was ready")
            case .ready(let keepalive):
                self.state = .draining(keepalive)
                return .notifyDraining
            case .draining, .closing, .closed:
                return .none
            }
        }

        /// The pool retires the connection (a refreshed provider token needs a new one, or the
        /// pool shuts down).
        mutating func retire() -> DrainAction {
            switch self.state {
            case .connecting:
                self.state = .closing(wasReady: false)
                return .fail("the connection was retired before it was ready")
            case .ready(let keepalive):
                self.state = .draining(keepalive)
                return .sendGoAwayAndNotify
            case .draining, .closing, .closed:
                return .none
            }
        }

        /// Whether new requests may be submitted.
        var acceptsRequests: Bool {
            if case .ready = self.state { return true }
            return false
        }

        /// A read burst arrived.
        mutating func trafficSeen() {
            switch self.state {
            case .ready(.watching(false)): self.state = .ready(.watching(sawTraffic: true))
            case .draining(.watching(false)): self.state = .draining(.watching(sawTraffic: true))
            default: break
            }
        }

        mutating func keepaliveTimerFired() -> KeepaliveAction {
            let keepalive: Keepalive
            switch self.state {
            case .ready(let current), .draining(let current): keepalive = current
            case .connecting, .closing, .closed: return .none
            }
            let next: Keepalive
            let action: KeepaliveAction
            switch keepalive {
            case .watching(sawTraffic: true):
                (next, action) = (.watching(sawTraffic: false), .scheduleCheck)
            case .watching(sawTraffic: false):
                (next, action) = (.awaitingPingAck, .sendPing)
            case .awaitingPingAck:
                self.state = .closing(wasReady: true)
                return .close("no PING acknowledgement within the keepalive timeout")
            }
            self.setKeepalive(next)
            return action
        }

        /// The server answered our PING: the connection is alive; check again after the interval.
        mutating func pingAcknowledged() -> KeepaliveAction {
            switch self.state {
            case .ready(.awaitingPingAck), .draining(.awaitingPingAck):
                self.setKeepalive(.watching(sawTraffic: false))
                return .scheduleCheck
            default:
                return .none
            }
        }

        /// The setup deadline passed. Returns whether to give up on the connection.
        mutating func connectTimeoutFired() -> Bool {
            guard self.state == .connecting else { return false }
            self.state = .closing(wasReady: false)
            return true
        }

        /// Something failed (a TLS or protocol error); the handler closes the channel.
        mutating func errorCaught() {
            switch self.state {
            case .connecting: self.state = .closing(wasReady: false)
            case .ready, .draining: self.state = .closing(wasReady: true)
            case .closing, .closed: break
            }
        }

        mutating func channelInactive() -> CloseAction {
            switch self.state {
            case .connecting, .closing(wasReady: false):
                self.state = .closed
                return .failConnect
            case .ready, .draining, .closing(wasReady: true):
                self.state = .closed
                return .notifyClosed
            case .closed:
                return .none
            }
        }

        private mutating func setKeepalive(_ keepalive: Keepalive) {
            switch self.state {
            case .ready: self.state = .ready(keepalive)
            case .draining: self.state = .draining(keepalive)
            case .connecting, .closing, .closed: break
            }
        }
    }
}
