import NIOHTTP1
import Prometheus

/// The operations routes, as a table. Everything here is read-only, so every route is GET:
///
/// | route | answer |
/// |---|---|
/// | `GET /metrics` | Prometheus text of the registry the worker's metrics live in |
/// | `GET /health/live` | 200 while the process runs: a liveness probe only restarts a hung process |
/// | `GET /health/ready` | 200 when `isReady()`, else 503: assigned, connected and not draining |
/// | any other method on these paths | 405 with `allow: GET` |
/// | any other path | 404 |
struct WorkerOperationsRouter: Sendable {
    private let routes: [String: @Sendable () -> WorkerOperationsResponse]

    /// Prometheus's text exposition format.
    static let metricsContentType = "text/plain; version=0.0.4; charset=utf-8"

    init(registry: PrometheusCollectorRegistry, isReady: @escaping @Sendable () -> Bool) {
        routes = [
            "/metrics": {
                WorkerOperationsResponse(status: .ok, contentType: Self.metricsContentType, body: registry.emitToBuffer())
            },
            "/health/live": { .text(.ok, "live\n") },
            "/health/ready": { isReady() ? .text(.ok, "ready\n") : .text(.serviceUnavailable, "not ready\n") },
        ]
    }

    func respond(method: HTTPMethod, uri: String) -> WorkerOperationsResponse {
        // Probes and scrapers may add a query string (`?format=...`); it selects nothing here.
        let path = String(uri.prefix { $0 != "?" })
        guard let route = routes[path] else { return .text(.notFound, "no route \(path)\n") }
        guard method == .GET else { return .text(.methodNotAllowed, "\(path) only answers GET\n", allow: "GET") }
        return route()
    }
}
