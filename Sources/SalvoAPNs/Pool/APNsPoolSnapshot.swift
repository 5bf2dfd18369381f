/// The pool's state at one moment, for tests and diagnostics.
struct APNsPoolSnapshot: Sendable, Equatable {
    var slots: [APNsConnectionPool.StateMachine.Slot]
    var connections: [APNsConnectionPool.StateMachine.Connection]
    var lifecycle: APNsConnectionPool.StateMachine.Lifecycle
    var inFlight: Int
    var queued: Int
    var lastConnectError: String?

    init(_ core: APNsPoolCore) {
        self.slots = core.stateMachine.slots
        self.connections = core.stateMachine.connections
        self.lifecycle = core.stateMachine.lifecycle
        self.inFlight = core.inFlight
        self.queued = core.queuedCount
        self.lastConnectError = core.lastConnectError?.message
    }
}
