import Logging
import Metrics
import NIOHTTP1
import Prometheus
import ServiceLifecycle
import Synchronization
import Testing

@testable import SalvoWorker

/// A readiness answer the test flips while the server runs.
private final class ReadyFlag: Sendable {
    let value = Atomic<Bool>(false)
}

/// Stands in for the engine: on graceful shutdown it turns not-ready, then takes `drain` to return.
private struct DrainingService: Service {
    let drain: Duration
    let onShutdown: @Sendable () -> Void

    func run() async throws {
        try await gracefulShutdown()
        onShutdown()
        try await Task.sleep(for: drain)
    }
}

@Suite("Worker operations listener")
struct WorkerOperationsServerTests {
    @Test("routes: metrics, live, ready 200/503, 404, 405 over real HTTP")
    func routesOverHTTP() async throws {
        let bootstrap = WorkerMetricsBootstrap()
        Counter(
            label: "salvo_notifications_total",
            dimensions: [("app", "news"), ("outcome", "delivered"), ("reason", "")],
            factory: bootstrap.factory
        ).increment(by: 3)
        let ready = ReadyFlag()
        let server = WorkerOperationsServer(
            listener: WorkerOperationsListener(host: "127.0.0.1", port: 0), metrics: bootstrap,
            isReady: { ready.value.load(ordering: .relaxed) })
        let port = try await server.start()
        #expect(port > 0)
        #expect(server.port == port)
        let base = "http://127.0.0.1:\(port)"
        do {
            let metrics = try HTTPProbe.request("\(base)/metrics")
            #expect(metrics.status == 200)
            #expect(
                metrics.body.contains(#"salvo_notifications_total{app="news",outcome="delivered",reason=""} 3"#),
                "\(metrics.body)")
            #expect(metrics.headers.lowercased().contains("content-type: text/plain; version=0.0.4"))

            #expect(try HTTPProbe.request("\(base)/health/live").status == 200)
            #expect(try HTTPProbe.request("\(base)/health/ready").status == 503)
            ready.value.store(true, ordering: .relaxed)
            let readyAnswer = try HTTPProbe.request("\(base)/health/ready?verbose=1")
            #expect(readyAnswer.status == 200)
            #expect(readyAnswer.body == "ready\n")

            #expect(try HTTPProbe.request("\(base)/nothing").status == 404)
            let post = try HTTPProbe.request("\(base)/metrics", method: "POST")
            #expect(post.status == 405)
            #expect(post.headers.lowercased().contains("allow: get"))
            #expect(try HTTPProbe.request("\(base)/health/live", method: "DELETE").status == 405)
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
        #expect(server.port == nil)
        #expect(throws: HTTPProbe.CurlFailed.self) { try HTTPProbe.request("\(base)/health/live") }
    }

    @Test("as a Service: serves until graceful shutdown, then closes")
    func serviceLifecycle() async throws {
        let server = WorkerOperationsServer(
            listener: WorkerOperationsListener(host: "127.0.0.1", port: 0), metrics: WorkerMetricsBootstrap(),
            isReady: { true })
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(services: [server], logger: Logger(label: "test")))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            defer { tasks.cancelAll() }
            var port: Int?
            for _ in 0..<200 where port == nil {
                port = server.port
                if port == nil { try await Task.sleep(for: .milliseconds(10)) }
            }
            let bound = try #require(port)
            #expect(try HTTPProbe.request("http://127.0.0.1:\(bound)/health/ready").status == 200)
            await group.triggerGracefulShutdown()
            try await tasks.next()
            #expect(server.port == nil)
        }
    }

    @Test("first in a ServiceGroup, it answers probes and scrapes while the service after it drains")
    func outlivesADrainingService() async throws {
        let ready = ReadyFlag()
        ready.value.store(true, ordering: .relaxed)
        let server = WorkerOperationsServer(
            listener: WorkerOperationsListener(host: "127.0.0.1", port: 0), metrics: WorkerMetricsBootstrap(),
            isReady: { ready.value.load(ordering: .relaxed) })
        let port = try await server.start()
        let engine = DrainingService(drain: .seconds(1), onShutdown: { ready.value.store(false, ordering: .relaxed) })
        // As `salvo worker` orders them: a group stops its services last to first.
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(services: [server, engine], logger: Logger(label: "test")))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            defer { tasks.cancelAll() }
            #expect(try HTTPProbe.request("http://127.0.0.1:\(port)/health/ready").status == 200)
            await group.triggerGracefulShutdown()
            // The group tells the service asynchronously; its drain starts when it turns not-ready.
            while ready.value.load(ordering: .relaxed) { try await Task.sleep(for: .milliseconds(5)) }
            let drainStarted = ContinuousClock.now
            var answers: [(live: Int, ready: Int, metrics: Int)] = []
            while drainStarted.duration(to: .now) < .milliseconds(700) {
                let base = "http://127.0.0.1:\(port)"
                answers.append(
                    (
                        try HTTPProbe.request("\(base)/health/live").status,
                        try HTTPProbe.request("\(base)/health/ready").status,
                        try HTTPProbe.request("\(base)/metrics").status
                    ))
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(answers.count >= 3)
            #expect(answers.allSatisfy { $0 == (200, 503, 200) }, "\(answers)")
            try await tasks.next()
            #expect(server.port == nil, "closed once the draining service returned")
        }
    }

    @Test("a second start returns the same port; start after shutdown fails; a taken port fails")
    func startRules() async throws {
        let server = WorkerOperationsServer(
            listener: WorkerOperationsListener(host: "127.0.0.1", port: 0), metrics: WorkerMetricsBootstrap(),
            isReady: { true })
        let port = try await server.start()
        let busy = WorkerOperationsServer(
            listener: WorkerOperationsListener(host: "127.0.0.1", port: port), metrics: WorkerMetricsBootstrap(),
            isReady: { true })
        do {
            #expect(try await server.start() == port)
            let error = await #expect(throws: SalvoWorkerError.self) { try await busy.start() }
            #expect(error?.message.contains("cannot listen on 127.0.0.1:\(port)") == true)
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
        await #expect(throws: SalvoWorkerError.self) { try await server.start() }
    }

    @Test("router table without a socket")
    func router() {
        let router = WorkerOperationsRouter(metrics: WorkerMetricsBootstrap(), isReady: { false })
        #expect(router.respond(method: .GET, uri: "/health/live").status == .ok)
        #expect(router.respond(method: .GET, uri: "/health/ready").status == .serviceUnavailable)
        #expect(
            router.respond(method: .HEAD, uri: "/metrics")
                == .text(.methodNotAllowed, "/metrics only answers GET\n", allow: "GET"))
        #expect(router.respond(method: .GET, uri: "/health").status == .notFound)
        #expect(router.respond(method: .PUT, uri: "/elsewhere").status == .notFound)
    }

    @Test("state machine: shutdown during a bind closes the new channel")
    func shutdownDuringBind() {
        var machine = WorkerOperationsServer.StateMachine()
        #expect(machine.startRequested() == .bind)
        #expect(machine.startRequested() == .refuse)
        guard case .none = machine.shutdownRequested() else {
            Issue.record("nothing to close while binding")
            return
        }
        #expect(machine.channel == nil)
        var fresh = WorkerOperationsServer.StateMachine()
        guard case .none = fresh.shutdownRequested() else {
            Issue.record("nothing to close before start")
            return
        }
        #expect(fresh.startRequested() == .refuse)
    }

    @Test("metrics bootstrap: latency timers use the worker's buckets")
    func latencyBuckets() {
        let bootstrap = WorkerMetricsBootstrap()
        Timer(label: "salvo_end_to_end_latency_seconds", dimensions: [("lane", "priority")], factory: bootstrap.factory)
            .recordMilliseconds(40)
        let text = String(decoding: bootstrap.emitToBuffer(), as: UTF8.self)
        #expect(text.contains(#"salvo_end_to_end_latency_seconds_bucket{lane="priority",le="0.05"} 1"#), "\(text)")
        #expect(text.contains(#"salvo_end_to_end_latency_seconds_bucket{lane="priority",le="300.0"} 1"#))
    }
}
