import NIOCore

extension WorkerOperationsServer {
    /// The listener's life: bound at most once, closed at most once, and a shutdown that arrives
    /// while the bind is in flight closes the channel as soon as it exists.
    struct StateMachine {
        private enum State {
            case idle
            case binding(shutdownRequested: Bool)
            case listening(any Channel)
            case closed
        }

        private var state = State.idle

        enum StartAction: Equatable {
            case bind
            /// Already listening: the caller gets the bound port.
            case alreadyListening
            /// Binding or shut down: a second start is a programming error.
            case refuse
        }

        enum BoundAction: Equatable {
            case keep
            /// `shutdown()` ran during the bind.
            case close
        }

        enum ShutdownAction {
            case none
            case close(any Channel)
        }

        var channel: (any Channel)? {
            if case .listening(let channel) = state { return channel }
            return nil
        }

        mutating func startRequested() -> StartAction {
            switch state {
            case .idle:
                state = .binding(shutdownRequested: false)
                return .bind
            case .listening: return .alreadyListening
            case .binding, .closed: return .refuse
            }
        }

        mutating func bound(_ channel: any Channel) -> BoundAction {
            guard case .binding(let shutdownRequested) = state else {
                preconditionFailure("bound() outside a bind")
            }
            if shutdownRequested {
                state = .closed
                return .close
            }
            state = .listening(channel)
            return .keep
        }

        mutating func bindFailed() {
            state = .closed
        }

        mutating func shutdownRequested() -> ShutdownAction {
            switch state {
            case .idle, .closed:
                state = .closed
                return .none
            case .binding:
                state = .binding(shutdownRequested: true)
                return .none
            case .listening(let channel):
                state = .closed
                return .close(channel)
            }
        }
    }
}
