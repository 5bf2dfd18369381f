/// The three answers the operations listener gives Kubernetes, each polled on its request (so
/// each must be cheap and never block):
///
/// | route | probe | 200 when |
/// |---|---|---|
/// | `/health/started` | startup | the engine runs: Kafka clients created, APNs pools started, core running |
/// | `/health/live` | liveness | the engine's dispatch loop beats (``WorkerEngine/isLive``); always during start-up and drain |
/// | `/health/ready` | readiness | at least one partition assigned and not draining (``WorkerEngine/isReady``) |
package struct WorkerProbes: Sendable {
    package var started: @Sendable () -> Bool
    package var live: @Sendable () -> Bool
    package var ready: @Sendable () -> Bool

    package init(
        started: @escaping @Sendable () -> Bool = { true }, live: @escaping @Sendable () -> Bool = { true },
        ready: @escaping @Sendable () -> Bool
    ) {
        self.started = started
        self.live = live
        self.ready = ready
    }

    /// The probes of a running engine.
    package init(engine: WorkerEngine) {
        self.init(started: { engine.hasStarted }, live: { engine.isLive }, ready: { engine.isReady })
    }
}
