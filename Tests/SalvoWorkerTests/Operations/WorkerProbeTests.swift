import NIOHTTP1
import Prometheus
import Testing

@testable import SalvoWorker

/// The startup and liveness probes: started once the engine runs, dead only
/// while its dispatch loop has stopped beating.
@Suite("Worker probes")
struct WorkerProbeTests {
    @Test("liveness: live while starting, while beating and while finishing; dead after 15 s without a beat")
    func liveness() {
        let start = ContinuousClock.now
        var liveness = WorkerLiveness()
        #expect(!liveness.hasStarted)
        #expect(liveness.isLive(at: start + .seconds(600)), "a start-up is the startup probe's to judge")
        liveness.beat(at: start)
        #expect(!liveness.hasStarted, "a beat before the start does not start it")
        liveness.started(at: start)
        #expect(liveness.hasStarted)
        #expect(liveness.isLive(at: start + .seconds(15)))
        #expect(!liveness.isLive(at: start + .seconds(16)))
        liveness.beat(at: start + .seconds(14))
        #expect(liveness.isLive(at: start + .seconds(29)))
        #expect(!liveness.isLive(at: start + .seconds(30)))
        liveness.finishing()
        #expect(liveness.hasStarted)
        #expect(liveness.isLive(at: start + .seconds(3_600)), "a drain is bounded by its own deadline")
    }

    @Test("routes: /health/started, /health/live and /health/ready answer their probe")
    func routes() {
        let router = WorkerOperationsRouter(
            metrics: WorkerMetricsBootstrap(),
            probes: WorkerProbes(started: { false }, live: { false }, ready: { true }))
        #expect(router.respond(method: .GET, uri: "/health/started").status == .serviceUnavailable)
        #expect(router.respond(method: .GET, uri: "/health/live").status == .serviceUnavailable)
        #expect(router.respond(method: .GET, uri: "/health/ready").status == .ok)
        #expect(router.respond(method: .POST, uri: "/health/started").status == .methodNotAllowed)
        let readinessOnly = WorkerOperationsRouter(metrics: WorkerMetricsBootstrap(), isReady: { false })
        #expect(readinessOnly.respond(method: .GET, uri: "/health/started").status == .ok)
        #expect(readinessOnly.respond(method: .GET, uri: "/health/live").status == .ok)
        #expect(readinessOnly.respond(method: .GET, uri: "/health/ready").status == .serviceUnavailable)
    }
}
