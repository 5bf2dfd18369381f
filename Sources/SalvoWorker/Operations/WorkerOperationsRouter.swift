import NIOHTTP1
import Prometheus

/// The operations routes, as a table. Everything here is read-only, so every route is GET:
///
/// | route | answer |
/// |---|---|
/// | `GET /metrics` | Prometheus text of every worker metric (`WorkerMetricsBootstrap.emitToBuffer()`) |
/// | `GET /health/started` | 200 once the engine runs, else 503 (the startup probe) |
/// | `GET /health/live` | 200 unless the engine's dispatch loop stopped beating, then 503 (the liveness probe) |
/// | `GET /health/ready` | 200 with a partition assigned and not draining, else 503 (the readiness probe) |
/// | any other method on these paths | 405 with `allow: GET` |
/// | any other path | 404 |
///
/// ``WorkerProbes`` says what each probe means.
struct WorkerOperationsRouter: Sendable {
    private let routes: [String: @Sendable () -> WorkerOperationsResponse]

    /// Prometheus's text exposition format.
    static let metricsContentType = "text/plain; version=0.0.4; charset=utf-8"

    init(metrics: WorkerMetricsBootstrap, probes: WorkerProbes) {
        func probe(
            _ answer: @escaping @Sendable () -> Bool, _ yes: String, _ no: String
        ) -> @Sendable () -> WorkerOperationsResponse {
            { answer() ? .text(.ok, yes) : .text(.serviceUnavailable, no) }
        }
        routes = [
            "/metrics": {
                WorkerOperationsResponse(
                    status: .ok, contentType: Self.metricsContentType, body: metrics.emitToBuffer())
            },
            "/health/started": probe(probes.started, "started\n", "starting\n"),
            "/health/live": probe(probes.live, "live\n", "stalled: the dispatch loop has not run for 15 s\n"),
            "/health/ready": probe(probes.ready, "ready\n", "not ready\n"),
        ]
    }

    /// Readiness alone; started and live always 200.
    init(metrics: WorkerMetricsBootstrap, isReady: @escaping @Sendable () -> Bool) {
        self.init(metrics: metrics, probes: WorkerProbes(ready: isReady))
    }

    func respond(method: HTTPMethod, uri: String) -> WorkerOperationsResponse {
        // Probes and scrapers may add a query string (`?format=...`); it selects nothing here.
        let path = String(uri.prefix { $0 != "?" })
        guard let route = routes[path] else { return .text(.notFound, "no route \(path)\n") }
        guard method == .GET else { return .text(.methodNotAllowed, "\(path) only answers GET\n", allow: "GET") }
        return route()
    }
}
